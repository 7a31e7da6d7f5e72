// Visible operations: what an agent publishes before it runs one.
#pragma once
#include <boost/container/small_vector.hpp>
#include <cstdint>
#include <source_location>
#include <string>

#include "checker/engine/ids.hpp"

namespace heddle {

/// One object (or byte range of a region) an operation touches; the DPOR
/// dependency relation is computed from these.
struct Access {
  ObjectId object{};
  std::uint32_t lo = 0;  // byte range [lo, hi) for regions; [0,1) for sync objects
  std::uint32_t hi = 1;
  bool write = false;    // modifies the object (release, RMW, arrival, ...)
  /// For resources made of units (a mutex has one, a semaphore counts them):
  /// -1 takes a unit (blocks while none is left), +1 gives units back, 0
  /// neither. DPOR uses it to tell whether a blocked take could have run
  /// before a given step.
  std::int8_t token = 0;
  /// For counting resources, set once the operation ran: the units available
  /// just before it (saturated at 127); -1 when not recorded.
  std::int8_t before = -1;
};

/// The objects one operation touches.
using Footprint = boost::container::small_vector<Access, 2>;

/// True when two footprints conflict: same object, overlapping, one writes.
/// Inline: DPOR's race analysis calls it for every candidate pair.
inline bool conflicts(const Footprint& a, const Footprint& b) noexcept {
  for (const auto& x : a)
    for (const auto& y : b)
      if (x.object == y.object && (x.write || y.write) && x.lo < y.hi && y.lo < x.hi) return true;
  return false;
}

/// A non-owning reference to a `bool()` callable that lives at least as long
/// as the operation is pending (it sits in the suspended fiber's frame).
class EnabledRef {
 public:
  EnabledRef() = default;
  template <class F>
  EnabledRef(const F& f) noexcept  // NOLINT: implicit by design
      : obj_(&f), call_([](const void* o) { return (*static_cast<const F*>(o))(); }) {}
  /// Operations without a condition are always enabled.
  bool operator()() const { return call_ == nullptr || call_(obj_); }
  /// True when the operation has a blocking condition (DPOR asks whether a
  /// reordered operation could still run).
  bool conditional() const noexcept { return call_ != nullptr; }

 private:
  const void* obj_ = nullptr;
  bool (*call_)(const void*) = nullptr;
};

/// The operation an agent will run when next scheduled.
struct PendingOp {
  const char* name = "";        // operation name, e.g. "lock", "tma.read_desc"
  ObjectId object{};            // main object, named in schedules and reports
  bool has_object = false;
  std::source_location loc;     // where the model performs it
  Footprint footprint;
  EnabledRef enabled;           // blocking condition (empty: always enabled)
};

}  // namespace heddle
