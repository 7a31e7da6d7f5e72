#include "checker/engine/arena.hpp"

#include <algorithm>
#include <cstdint>

namespace heddle {

void* Arena::do_allocate(std::size_t bytes, std::size_t align) {
  for (; current_ < blocks_.size(); ++current_, used_ = 0) {
    Block& b = blocks_[current_];
    auto base = reinterpret_cast<std::uintptr_t>(b.mem.get());
    std::uintptr_t at = (base + used_ + align - 1) & ~(align - 1);  // a power of two
    if (at + bytes <= base + b.size) {
      used_ = at + bytes - base;
      return reinterpret_cast<void*>(at);
    }
  }
  // No block left with room: a new one at the end (large requests get their own size).
  Block b;
  b.size = std::max(kBlockBytes, bytes + align);
  b.mem = std::make_unique_for_overwrite<std::byte[]>(b.size);
  blocks_.push_back(std::move(b));
  current_ = blocks_.size() - 1;
  used_ = 0;
  return do_allocate(bytes, align);
}

}  // namespace heddle
