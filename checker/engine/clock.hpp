// Vector clocks as small value types sized at run time.
#pragma once
#include <algorithm>
#include <compare>
#include <cstdint>
#include <cstring>
#include <vector>

#include "checker/engine/ids.hpp"

namespace heddle {

/// A vector clock: one logical time per agent; missing entries are zero.
/// Stored inline for up to kInline agents, on the heap beyond that.
/// Invariant: inline entries at and beyond size_ are zero.
class VectorClock {
 public:
  static constexpr std::size_t kInline = 16;  // the classic benchmarks run up to 16 agents

  VectorClock() = default;

  /// Time of `agent` in this clock (0 when never seen).
  std::uint32_t operator[](AgentId agent) const noexcept {
    auto i = index(agent);
    return i < size_ ? data()[i] : 0;
  }
  /// Number of entries stored (agents beyond it read as zero).
  std::size_t size() const noexcept { return size_; }

  /// Sets one entry, growing the clock if needed.
  void set(AgentId agent, std::uint32_t time) {
    const auto i = index(agent);
    if (heap_.empty() && i < kInline) {  // inline (the common case): no growth needed
      inline_[i] = time;
      size_ = std::max<std::uint32_t>(size_, i + 1);
      return;
    }
    set_slow(agent, time);
  }
  /// Advances `agent`'s own entry by one (program order).
  void tick(AgentId agent) {
    if (inline_only() && index(agent) < kInline) {
      tick_inline(agent);
      return;
    }
    set(agent, (*this)[agent] + 1);
  }
  /// tick() of a clock stored inline, for an agent below kInline.
  void tick_inline(AgentId agent) noexcept {
    const auto i = index(agent);
    ++inline_[i];  // unused inline entries are zero
    size_ = std::max<std::uint32_t>(size_, i + 1);
  }
  /// True while the entries are stored inline (at most kInline of them).
  bool inline_only() const noexcept { return heap_.empty(); }
  /// Pointwise maximum with `other` (the effect of an acquire).
  void join(const VectorClock& other) {
    if (other.size_ == 0) return;  // an empty clock (commit clocks mostly are)
    if (inline_only() && other.inline_only()) {
      join_inline(other);
      return;
    }
    join_slow(other);
  }
  /// join() of two clocks stored inline.
  void join_inline(const VectorClock& other) noexcept {
    // Unused entries are zero: only other's used entries can raise this
    // one, joined in blocks of four (no unsigned max in baseline SSE2).
    const std::size_t n = round_up4(other.size_);
    for (std::size_t b = 0; b < n; b += 4)
      for (std::size_t i = b; i < b + 4; ++i) inline_[i] = std::max(inline_[i], other.inline_[i]);
    size_ = std::max(size_, other.size_);
  }
  /// Makes this clock and `other` both their pointwise maximum: join(other),
  /// then other = *this (an acq_rel RMW's acquire and release), in one pass.
  void join_both(VectorClock& other) {
    if (inline_only() && other.inline_only()) {
      join_both_inline(other);
      return;
    }
    join(other);
    other = *this;
  }
  /// join_both() of two clocks stored inline.
  void join_both_inline(VectorClock& other) noexcept {
    const std::size_t n = round_up4(std::max(size_, other.size_));
    for (std::size_t b = 0; b < n; b += 4)
      for (std::size_t i = b; i < b + 4; ++i)
        inline_[i] = other.inline_[i] = std::max(inline_[i], other.inline_[i]);
    size_ = other.size_ = std::max(size_, other.size_);
  }
  /// True when the event at `e` happens before (or is) this clock's view.
  bool covers(Epoch e) const noexcept { return (*this)[e.agent] >= e.time; }

  /// Partial order: less when every entry <=, unordered when concurrent.
  friend std::partial_ordering operator<=>(const VectorClock& a, const VectorClock& b);
  friend bool operator==(const VectorClock& a, const VectorClock& b) {
    return (a <=> b) == std::partial_ordering::equivalent;
  }

  VectorClock(const VectorClock& other) { assign(other); }
  VectorClock& operator=(const VectorClock& other) {
    if (this != &other) assign(other);
    return *this;
  }
  VectorClock(VectorClock&& other) noexcept { steal(other); }
  VectorClock& operator=(VectorClock&& other) noexcept {
    if (this != &other) steal(other);
    return *this;
  }

 private:
  static_assert(kInline % 4 == 0, "join and assign work in blocks of four");
  /// `n` rounded up to a multiple of four (at most kInline for inline sizes).
  static constexpr std::size_t round_up4(std::size_t n) noexcept { return (n + 3) & ~std::size_t{3}; }
  std::uint32_t* data() noexcept { return heap_.empty() ? inline_ : heap_.data(); }
  const std::uint32_t* data() const noexcept { return heap_.empty() ? inline_ : heap_.data(); }
  void grow(std::size_t n);
  void set_slow(AgentId agent, std::uint32_t time);
  void join_slow(const VectorClock& other);
  void assign(const VectorClock& other) {
    if (heap_.empty() && other.heap_.empty()) {
      // All of it: a copy of fixed size is a few moves, where one of the
      // used entries only is a call to memmove.
      std::memcpy(inline_, other.inline_, sizeof inline_);
      size_ = other.size_;
      return;
    }
    assign_slow(other);
  }
  void assign_slow(const VectorClock& other);
  /// Moves `other`'s entries here (taking its heap storage) and empties it.
  void steal(VectorClock& other) noexcept;

  std::uint32_t inline_[kInline] = {};
  std::vector<std::uint32_t> heap_;  // used once size_ exceeds kInline
  std::uint32_t size_ = 0;
};

}  // namespace heddle
