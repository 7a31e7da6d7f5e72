// Visible operations: what an agent publishes before it runs one.
#pragma once
#include <boost/container/small_vector.hpp>
#include <cstdint>
#include <source_location>
#include <string>

#include "checker/engine/ids.hpp"

namespace heddle {

/// How an access may be reordered with another one on the same bytes. Two
/// entries conflict when they overlap and are neither both reads nor both
/// commutative updates of one class (Mazurkiewicz independence under a
/// coarser relation; Godefroid, LNCS 1032, Sec. 3.1: both orders reach the
/// same state and neither enables nor disables the other).
/// A class names one kind of update (`Update`), and for updates that commute
/// only within one phase of their object, that phase (`update_in_phase`).
using UpdateClass = std::uint32_t;

/// The kinds of commutative update the models use. Each model operation that
/// declares one says, where it does, why its two orders give one state.
enum class Update : std::uint32_t {
  none = 0,        // not an update: a read or a write
  counter_add,     // add to a counter without reading it (red.add)
  signal,          // a semaphore signal (count += n, release)
  arrive,          // an arrival on a barrier phase (pending -= 1, release)
  tx_complete,     // complete_tx on an mbarrier phase that awaits only bytes
};

/// The class of a commutative update: its kind, in phase `phase` of its object
/// when it commutes only within one phase (phase 0 otherwise).
constexpr UpdateClass update_in_phase(Update u, std::uint64_t phase = 0) noexcept {
  return static_cast<UpdateClass>((phase << 3) | static_cast<std::uint64_t>(u));
}

/// One object (or byte range of a region) an operation touches; the DPOR
/// dependency relation is computed from these.
struct Access {
  ObjectId object{};
  std::uint32_t lo = 0;  // byte range [lo, hi) for regions; [0,1) for sync objects
  std::uint32_t hi = 1;  // (phased sync objects use [phase, phase + 2), see models/gpu)
  bool write = false;    // modifies the object (release, RMW, arrival, ...)
  /// For resources made of units (a mutex has one, a semaphore counts them):
  /// -1 takes a unit (blocks while none is left), +1 gives units back, 0
  /// neither. DPOR uses it to tell whether a blocked take could have run
  /// before a given step.
  std::int8_t token = 0;
  /// For counting resources, set once the operation ran: the units available
  /// just before it (saturated at 127); -1 when not recorded.
  std::int8_t before = -1;
  /// Non-zero: this write is a commutative update of this class; it commutes
  /// with the updates of the same class on the same bytes (and only those).
  UpdateClass update = 0;
};

/// A commutative update of class `cls` on the bytes [lo, hi) of `object`.
constexpr Access update_of(ObjectId object, UpdateClass cls, std::uint32_t lo = 0,
                           std::uint32_t hi = 1) noexcept {
  return Access{object, lo, hi, true, 0, -1, cls};
}

/// Phased sync objects (barriers) give phase p the bytes [p, p + 1). An
/// update landing in phase p covers [p, p + 2): it conflicts with updates of
/// phase p + 1 (which land there only once p is complete) and with waits on
/// p or p + 1, and commutes with the same kind of update in phase p.
constexpr std::uint32_t kAllPhases = 0xffffffffu;
/// The phase number as a byte offset (phases past 2^32 - 3 share one).
constexpr std::uint32_t phase_byte(std::uint64_t phase) noexcept {
  return phase < kAllPhases - 2 ? static_cast<std::uint32_t>(phase) : kAllPhases - 3;
}
/// A commutative update of kind `u` landing in phase `phase` of `object`.
constexpr Access phase_update(ObjectId object, Update u, std::uint64_t phase) noexcept {
  return update_of(object, update_in_phase(u, phase), phase_byte(phase), phase_byte(phase) + 2);
}
/// A read of the phases [first, last] of `object` (a wait on a phase).
constexpr Access phase_read(ObjectId object, std::uint64_t first, std::uint64_t last) noexcept {
  return Access{object, phase_byte(first), phase_byte(last) + 1, false};
}
/// Every phase of `object`, written: what an operation declares before it
/// knows which phase it will land in (it is refined once it ran).
constexpr Access all_phases(ObjectId object, bool write = true) noexcept {
  return Access{object, 0, kAllPhases, write};
}

/// True when two entries conflict: they overlap, one writes, and they are
/// not two commutative updates of one class.
constexpr bool conflicts(const Access& x, const Access& y) noexcept {
  return x.object == y.object && (x.write || y.write) && x.lo < y.hi && y.lo < x.hi &&
         (x.update == 0 || x.update != y.update);
}

/// The objects one operation touches.
using Footprint = boost::container::small_vector<Access, 2>;

/// True when two footprints conflict: some pair of their entries does.
/// Inline: DPOR's race analysis calls it for every candidate pair.
inline bool conflicts(const Footprint& a, const Footprint& b) noexcept {
  for (const auto& x : a)
    for (const auto& y : b)
      if (conflicts(x, y)) return true;
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
