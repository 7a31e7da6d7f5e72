// cuTensorMapEncodeTiled into heddle's tensormap encoding (the one the PTX
// front end's TMA operations read: models/ptx/tensormap.hpp).
#pragma once
#include <cstdint>
#include <string>

namespace heddle::cuda {

/// The arguments of cuTensorMapEncodeTiled (CUDA driver API, "Tensor Map
/// Object Management"), enums as their integer values.
struct TiledArgs {
  int data_type = 0;
  unsigned rank = 0;
  const void* address = nullptr;
  const std::uint64_t* dims = nullptr;
  const std::uint64_t* strides = nullptr;  // rank - 1 of them, bytes
  const std::uint32_t* box = nullptr;
  const std::uint32_t* element_strides = nullptr;
  int interleave = 0, swizzle = 0, oob_fill = 0;
};

/// Encodes a tiled TMA descriptor into the 128 bytes at `out`. Returns why
/// the driver would refuse it (CUDA_ERROR_INVALID_VALUE), "" when encoded;
/// UsageError for a valid one heddle does not model (interleave, packed types).
std::string encode_tiled(void* out, const TiledArgs& a);

}  // namespace heddle::cuda
