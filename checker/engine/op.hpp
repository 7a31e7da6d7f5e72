// Visible operations: what an agent publishes before it runs one.
#pragma once
#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <utility>
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
  reduce_min,      // an atomic min into memory without reading it (red.min)
  reduce_max,      // an atomic max into memory without reading it (red.max)
  reduce_and,      // an atomic bitwise and into memory without reading it (red.and)
  reduce_or,       // an atomic bitwise or (red.or)
  reduce_xor,      // an atomic bitwise xor (red.xor)
};
inline constexpr unsigned kUpdateKindBits = 4;  // room for 16 kinds
static_assert(static_cast<unsigned>(Update::reduce_xor) < (1u << kUpdateKindBits));

/// The class of a commutative update: its kind, in phase `phase` of its object
/// when it commutes only within one phase (phase 0 otherwise).
constexpr UpdateClass update_in_phase(Update u, std::uint64_t phase = 0) noexcept {
  return static_cast<UpdateClass>((phase << kUpdateKindBits) | static_cast<std::uint64_t>(u));
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
  /// On a wait's read: the wait is blocked until this entry is satisfied.
  /// On a phased object, while phase `lo` gathers its arrivals; on another,
  /// until the one step that writes exactly these bytes ran (an async op's
  /// completion or read phase). DPOR's needs_step.
  bool needs_completion = false;
  /// Non-zero: this write is a commutative update of this class; it commutes
  /// with the updates of the same class on the same bytes (and only those).
  UpdateClass update = 0;
};

/// A unit count as Access::token and Access::before hold it: saturated at
/// 127, which DPOR reads as "at least that many".
constexpr std::int8_t saturated_units(std::uint64_t n) noexcept {
  return static_cast<std::int8_t>(std::min<std::uint64_t>(n, 127));
}

/// A commutative update of class `cls` on the bytes [lo, hi) of `object`.
constexpr Access update_of(ObjectId object, UpdateClass cls, std::uint32_t lo = 0,
                           std::uint32_t hi = 1) noexcept {
  return Access{object, lo, hi, true, 0, -1, false, cls};
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
/// `a`, a wait's read, marked as one the wait needs (Access::needs_completion).
constexpr Access needed(Access a) noexcept {
  a.needs_completion = true;
  return a;
}
/// A wait's read of phases [first, last] of `object`, blocked while phase
/// `first` gathers its arrivals (see Access::needs_completion).
constexpr Access completion_read(ObjectId object, std::uint64_t first, std::uint64_t last) noexcept {
  return needed(phase_read(object, first, last));
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

/// The objects one operation touches: a small vector of accesses, two
/// inline (almost every operation touches one or two objects). Every step
/// copies footprints several times (the trace, DPOR's records), so a copy
/// of up to two entries is a fixed-size copy, not a call to memmove as in
/// boost::container::small_vector (bench/RESULTS.md, issue 17).
/// Invariant: entries live in inline_ while size_ <= kInline and heap_ is
/// null, else in heap_ (capacity cap_).
class Footprint {
 public:
  using value_type = Access;
  using size_type = std::size_t;
  using iterator = Access*;
  using const_iterator = const Access*;
  using reference = Access&;
  using const_reference = const Access&;
  static constexpr std::uint32_t kInline = 2;

  Footprint() noexcept = default;
  Footprint(std::initializer_list<Access> list) {
    reserve(list.size());
    for (const Access& a : list) push_back(a);
  }
  // Both inline entries copied whatever the size (a fixed copy), in the
  // initializers: default-initialized first, they would be written twice.
  Footprint(const Footprint& other)
      : inline_{other.data()[0], other.data()[1]}, size_(other.size_) {
    if (other.size_ > kInline) copy_from(other);
  }
  Footprint(Footprint&& other) noexcept { steal(other); }
  Footprint& operator=(const Footprint& other) {
    if (this != &other) {
      size_ = 0;
      if (other.size_ <= cap_) {  // fits: copy in place, keeping any heap storage
        std::copy(other.data(), other.data() + other.size_, data());
        size_ = other.size_;
      } else {
        release();
        copy_from(other);
      }
    }
    return *this;
  }
  Footprint& operator=(Footprint&& other) noexcept {
    if (this != &other) {
      release();
      steal(other);
    }
    return *this;
  }
  ~Footprint() { release(); }

  std::size_t size() const noexcept { return size_; }
  bool empty() const noexcept { return size_ == 0; }
  std::size_t capacity() const noexcept { return cap_; }
  Access* data() noexcept { return heap_ != nullptr ? heap_ : inline_; }
  const Access* data() const noexcept { return heap_ != nullptr ? heap_ : inline_; }
  Access* begin() noexcept { return data(); }
  Access* end() noexcept { return data() + size_; }
  const Access* begin() const noexcept { return data(); }
  const Access* end() const noexcept { return data() + size_; }
  Access& operator[](std::size_t k) noexcept { return data()[k]; }
  const Access& operator[](std::size_t k) const noexcept { return data()[k]; }
  Access& front() noexcept { return data()[0]; }
  const Access& front() const noexcept { return data()[0]; }
  Access& back() noexcept { return data()[size_ - 1]; }
  const Access& back() const noexcept { return data()[size_ - 1]; }

  void clear() noexcept { size_ = 0; }
  /// Makes `a` the only entry (there is always room for one).
  void assign_one(const Access& a) noexcept {
    data()[0] = a;
    size_ = 1;
  }
  void reserve(std::size_t n) {
    if (n > cap_) grow(n);
  }
  void push_back(const Access& a) {
    if (size_ == cap_) grow(2 * static_cast<std::size_t>(cap_));
    data()[size_++] = a;
  }
  template <class... A>
  Access& emplace_back(A&&... args) {
    push_back(Access{std::forward<A>(args)...});
    return back();
  }
  void pop_back() noexcept { --size_; }
  void resize(std::size_t n) {
    reserve(n);
    for (std::size_t k = size_; k < n; ++k) data()[k] = Access{};
    size_ = static_cast<std::uint32_t>(n);
  }
  Access* insert(const Access* pos, const Access& a) {
    const Access copy = a;  // `a` may be an entry of this footprint
    const std::size_t at = static_cast<std::size_t>(pos - data());
    if (size_ == cap_) grow(2 * static_cast<std::size_t>(cap_));
    Access* d = data();
    std::copy_backward(d + at, d + size_, d + size_ + 1);
    d[at] = copy;
    ++size_;
    return d + at;
  }
  template <class It>
  Access* insert(const Access* pos, It first, It last) {
    const std::size_t at = static_cast<std::size_t>(pos - data());
    Footprint added;
    for (; first != last; ++first) added.push_back(*first);
    reserve(size_ + added.size_);
    Access* d = data();
    std::copy_backward(d + at, d + size_, d + size_ + added.size_);
    std::copy(added.begin(), added.end(), d + at);
    size_ += added.size_;
    return d + at;
  }
  Access* erase(const Access* first, const Access* last) noexcept {
    Access* d = data();
    Access* f = d + (first - d);
    Access* l = d + (last - d);
    std::copy(l, d + size_, f);
    size_ -= static_cast<std::uint32_t>(l - f);
    return f;
  }
  Access* erase(const Access* pos) noexcept { return erase(pos, pos + 1); }

 private:
  void copy_from(const Footprint& other) {
    if (other.size_ <= kInline) {
      // Both inline entries, whatever the size: a fixed copy the compiler inlines.
      inline_[0] = other.data()[0];
      inline_[1] = other.data()[1];
      size_ = other.size_;
      return;
    }
    heap_ = new Access[other.size_];
    cap_ = other.size_;
    std::copy(other.heap_, other.heap_ + other.size_, heap_);
    size_ = other.size_;
  }
  void steal(Footprint& other) noexcept {
    if (other.heap_ == nullptr) {
      inline_[0] = other.inline_[0];
      inline_[1] = other.inline_[1];
    } else {
      heap_ = other.heap_;
      cap_ = other.cap_;
      other.heap_ = nullptr;
      other.cap_ = kInline;
    }
    size_ = other.size_;
    other.size_ = 0;
  }
  void release() noexcept {
    delete[] heap_;
    heap_ = nullptr;
    cap_ = kInline;
  }
  void grow(std::size_t n) {
    auto* bigger = new Access[n];
    std::copy(data(), data() + size_, bigger);
    delete[] heap_;
    heap_ = bigger;
    cap_ = static_cast<std::uint32_t>(n);
  }

  Access inline_[kInline] = {};
  Access* heap_ = nullptr;
  std::uint32_t size_ = 0;
  std::uint32_t cap_ = kInline;
};

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

  /// Makes this a default operation again, keeping the footprint's storage
  /// (assigning a new PendingOp would free and rebuild it).
  void clear() noexcept {
    name = "";
    object = {};
    has_object = false;
    loc = {};
    footprint.clear();
    enabled = {};
  }
};

}  // namespace heddle
