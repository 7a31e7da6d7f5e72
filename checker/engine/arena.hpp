// A bump allocator for the objects one execution's model makes.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <memory_resource>
#include <vector>

namespace heddle {

/// Memory for one execution's model objects (heddle::make): allocation
/// bumps a pointer, deallocation does nothing, and rewind() frees it all at
/// once, keeping the blocks, so the next execution of the same model
/// allocates nothing from the heap. The owner destroys the objects first.
class Arena final : public std::pmr::memory_resource {
 public:
  Arena() = default;
  Arena(const Arena&) = delete;
  Arena& operator=(const Arena&) = delete;

  /// `bytes` at alignment `align` (a power of two): a bump in the current
  /// block, inline, when it has room; else do_allocate.
  void* bump(std::size_t bytes, std::size_t align) {
    if (current_ < blocks_.size()) {
      const Block& b = blocks_[current_];
      const auto base = reinterpret_cast<std::uintptr_t>(b.mem.get());
      const std::uintptr_t at = (base + used_ + align - 1) & ~(align - 1);
      if (at + bytes <= base + b.size) {
        used_ = at + bytes - base;
        return reinterpret_cast<void*>(at);
      }
    }
    return do_allocate(bytes, align);
  }
  /// Forgets every allocation; the blocks are reused in the same order.
  void rewind() noexcept {
    current_ = 0;
    used_ = 0;
  }

 private:
  void* do_allocate(std::size_t bytes, std::size_t align) override;
  void do_deallocate(void*, std::size_t, std::size_t) noexcept override {}
  bool do_is_equal(const std::pmr::memory_resource& o) const noexcept override {
    return this == &o;
  }

  static constexpr std::size_t kBlockBytes = 16 * 1024;
  struct Block {
    std::unique_ptr<std::byte[]> mem;
    std::size_t size = 0;
  };
  std::vector<Block> blocks_;
  std::size_t current_ = 0;  // the block being filled (== blocks_.size(): none yet)
  std::size_t used_ = 0;     // bytes of blocks_[current_] handed out
};

}  // namespace heddle
