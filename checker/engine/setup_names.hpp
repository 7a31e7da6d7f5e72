// The names an execution gave its objects, kept when it is renewed, and
// what the setup check last accepted. Setup is deterministic, so a renewed
// execution mostly repeats the names of the one before: each is compared
// in place instead of copied, and when all of them repeat, the setup check
// accepts the setup without comparing its names a second time.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace heddle {

/// a == b, short names compared inline: most names are a few bytes, fewer
/// than a call to memcmp costs.
inline bool same_name(std::string_view a, std::string_view b) noexcept {
  if (a.size() != b.size()) return false;
  if (a.size() > 16) return a == b;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (a[i] != b[i]) return false;
  return true;
}

/// Object names of one execution, kept for the next (Execution::renew), and
/// whether every name so far repeats the execution before's at its place.
class SetupNames {
 public:
  SetupNames() = default;
  /// Starts with `storage`'s strings (their capacity) and no names.
  explicit SetupNames(std::vector<std::string> storage) : names_(std::move(storage)) {}
  /// The strings, for a later execution's storage.
  std::vector<std::string> release() && { return std::move(names_); }

  /// A new execution: no objects yet; the names kept are the ones to repeat.
  void renew() noexcept {
    accepted.last = accepted.now;
    accepted.now = false;
    count_ = 0;
    differs_ = false;
  }
  /// Registers the next object's name; returns its index.
  std::uint32_t add_object(std::string_view name) {
    const std::size_t i = count_++;
    if (i == names_.size()) {
      names_.emplace_back(name);
      differs_ = true;
    } else if (!same_name(names_[i], name)) {
      names_[i].assign(name);
      differs_ = true;
    }
    return static_cast<std::uint32_t>(i);
  }
  /// Notes a difference from the execution before that names cannot show
  /// (an agent at another place, an agent that was not kept).
  void differ() noexcept { differs_ = true; }
  /// True while every object and agent so far repeats the execution
  /// before's name at its place.
  bool repeats() const noexcept { return !differs_; }
  /// Object `i`'s name (i < size()).
  const std::string& operator[](std::size_t i) const { return names_[i]; }
  /// Number of objects registered.
  std::size_t size() const noexcept { return count_; }
  /// The last name registered (size() > 0).
  const std::string& back() const { return names_[count_ - 1]; }

  /// What the setup check accepted last: this execution's setup
  /// (`now`), or the execution before's (`last`), under `model` and
  /// `choices` in the record of setups `generation`, with `objects` objects
  /// and `agents` agents. Execution::check_setup_determinism keeps it.
  struct Accepted {
    bool now = false;
    bool last = false;
    std::uint64_t model = 0;
    std::uint64_t generation = 0;
    std::vector<std::uint32_t> choices;
    std::size_t objects = 0;
    std::size_t agents = 0;
  };
  Accepted accepted;

 private:
  std::vector<std::string> names_;  // [0, count_): this execution's; beyond: kept
  std::size_t count_ = 0;
  bool differs_ = false;
};

}  // namespace heddle
