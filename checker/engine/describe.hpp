// Objects whose visible state can be said in words: `heddle replay --steps`
// prints, after each step, what it changed. Models implement describe() on
// their sync objects; the engine never knows what the words mean.
#pragma once
#include <string>

namespace heddle {

/// An object with visible state (a sync object, a copy's completion state).
class Describable {
 public:
  virtual ~Describable() = default;
  /// The state now, e.g. "count 1" or "phase 0, 1 of 2 arrivals pending";
  /// "" when there is nothing to say.
  virtual std::string describe() const = 0;
};

}  // namespace heddle
