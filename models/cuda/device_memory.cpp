#include "models/cuda/device_memory.hpp"

#include <fmt/format.h>
#include <sys/mman.h>

#include <cstring>
#include <new>

namespace heddle::cuda {
namespace {

// The reserved range: below the interpreter's shared window (0x7e00'0000'0000)
// and its own global addresses (0x7f00'0000'0000), above the usual heap.
constexpr std::uint64_t kFirst = 0x200000000000ull;
constexpr std::uint64_t kLast = 0x300000000000ull;
constexpr std::uint64_t kPage = 4096;

}  // namespace

Block& DeviceMemory::allocate(std::size_t bytes, std::string name) {
  if (next_ == 0) next_ = kFirst;
  const std::uint64_t length = (std::max<std::size_t>(bytes, 1) + kPage - 1) / kPage * kPage;
  if (next_ + length > kLast) throw std::bad_alloc();
  void* p = mmap(reinterpret_cast<void*>(next_), length, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED || reinterpret_cast<std::uint64_t>(p) != next_) throw std::bad_alloc();
  Block b{next_, bytes, name.empty() ? fmt::format("cudaMalloc#{} ({} B)", ++count_, bytes) : std::move(name)};
  next_ += length + kPage;  // an unmapped page between blocks: overruns fault in the model too
  return blocks_[b.base] = std::move(b);
}

bool DeviceMemory::free(std::uint64_t base) {
  auto it = blocks_.find(base);
  if (it == blocks_.end()) return false;
  munmap(reinterpret_cast<void*>(base), (std::max<std::size_t>(it->second.bytes, 1) + kPage - 1) / kPage * kPage);
  blocks_.erase(it);
  return true;
}

const Block* DeviceMemory::find(std::uint64_t addr, std::size_t bytes) const {
  auto it = blocks_.upper_bound(addr);
  if (it == blocks_.begin()) return nullptr;
  --it;
  const Block& b = it->second;
  return addr + bytes <= b.base + b.bytes ? &b : nullptr;
}

bool DeviceMemory::in_range(std::uint64_t addr) { return addr >= kFirst && addr < kLast; }

DeviceMemory& device_memory() {
  static DeviceMemory m;
  return m;
}

Snapshot snapshot(const DeviceMemory& m) {
  Snapshot s;
  for (const auto& [base, b] : m.blocks()) {
    const auto* p = reinterpret_cast<const std::uint8_t*>(base);
    s.blocks.emplace_back(&b, std::vector<std::uint8_t>(p, p + b.bytes));
  }
  return s;
}

}  // namespace heddle::cuda
