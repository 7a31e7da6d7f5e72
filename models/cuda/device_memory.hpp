// Device memory of a program run under heddle: host memory at addresses of
// its own (a reserved range, so that they never meet the interpreter's own
// global addresses or shared window), mapped at the same addresses into
// each execution of a launch. Device pointers stored in device memory (an
// array of pointers, CUTLASS grouped GEMM) therefore work as they are.
#pragma once
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace heddle::cuda {

/// One cudaMalloc'd block (or a __device__ variable's storage).
struct Block {
  std::uint64_t base = 0;
  std::size_t bytes = 0;
  std::string name;  // "cudaMalloc#3 (1024 B)": the 3rd allocation, its size; or the variable's name
};

/// Every live block, by base address.
class DeviceMemory {
 public:
  /// A fresh zeroed block of `bytes` (256-byte aligned, never reused after free).
  Block& allocate(std::size_t bytes, std::string name = {});
  /// Frees the block at `base`; false when no block starts there.
  bool free(std::uint64_t base);
  /// The block holding [addr, addr+bytes), or nullptr.
  const Block* find(std::uint64_t addr, std::size_t bytes = 1) const;
  /// Every live block, in address order.
  const std::map<std::uint64_t, Block>& blocks() const noexcept { return blocks_; }
  /// True when `addr` is in the range device memory is allocated from.
  static bool in_range(std::uint64_t addr);

 private:
  std::map<std::uint64_t, Block> blocks_;
  std::uint64_t next_ = 0;
  int count_ = 0;
};

/// The process's device memory.
DeviceMemory& device_memory();

/// The contents of every live block (a launch's pre-launch state).
struct Snapshot {
  std::vector<std::pair<const Block*, std::vector<std::uint8_t>>> blocks;
};
Snapshot snapshot(const DeviceMemory& m);

}  // namespace heddle::cuda
