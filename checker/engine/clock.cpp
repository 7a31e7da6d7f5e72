#include "checker/engine/clock.hpp"

namespace heddle {

void VectorClock::grow(std::size_t n) {
  if (n <= size_) return;
  if (n > kInline && heap_.empty()) {
    heap_.assign(inline_, inline_ + size_);
    heap_.resize(n, 0);
  } else if (!heap_.empty()) {
    heap_.resize(n, 0);
  }
  size_ = static_cast<std::uint32_t>(n);
}

void VectorClock::set_slow(AgentId agent, std::uint32_t time) {
  grow(index(agent) + 1);
  data()[index(agent)] = time;
}

void VectorClock::join_slow(const VectorClock& other) {
  grow(other.size_);
  auto* mine = data();
  const auto* theirs = other.data();
  for (std::uint32_t i = 0; i < other.size_; ++i) mine[i] = std::max(mine[i], theirs[i]);
}

void VectorClock::assign_slow(const VectorClock& other) {
  if (other.size_ <= kInline) {
    heap_.clear();
    std::copy(other.inline_, other.inline_ + kInline, inline_);
    if (!other.heap_.empty()) std::copy(other.heap_.begin(), other.heap_.end(), inline_);
  } else {
    heap_ = other.heap_;
  }
  size_ = other.size_;
}

void VectorClock::steal(VectorClock& other) noexcept {
  if (other.heap_.empty()) {
    heap_.clear();
    std::memcpy(inline_, other.inline_, sizeof inline_);  // fixed size: no call
  } else {
    heap_ = std::move(other.heap_);
    other.heap_.clear();
  }
  size_ = other.size_;
  other.size_ = 0;
  std::fill(other.inline_, other.inline_ + kInline, 0u);  // keep the zero invariant
}

std::partial_ordering operator<=>(const VectorClock& a, const VectorClock& b) {
  bool less = false, greater = false;
  auto n = std::max(a.size_, b.size_);
  for (std::uint32_t i = 0; i < n; ++i) {
    auto x = a[AgentId{i}], y = b[AgentId{i}];
    less |= x < y;
    greater |= x > y;
  }
  if (less && greater) return std::partial_ordering::unordered;
  if (less) return std::partial_ordering::less;
  if (greater) return std::partial_ordering::greater;
  return std::partial_ordering::equivalent;
}

}  // namespace heddle
