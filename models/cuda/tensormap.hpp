// cuTensorMapEncodeTiled into heddle's tensormap encoding (the one the PTX
// front end's TMA operations read: models/ptx/launch.hpp encode_tensormap).
#pragma once
#include <cstdint>

namespace heddle::cuda {

/// Encodes a tiled TMA descriptor (the driver call's arguments, CUDA driver
/// API "Tensor Map Object Management"); UsageError naming what heddle's
/// TMA model cannot express (it moves boxes of whole rows or of one row).
void encode_tiled(void* out, int data_type, unsigned rank, const void* address,
                  const std::uint64_t* dims, const std::uint64_t* strides,
                  const std::uint32_t* box, const std::uint32_t* element_strides);

}  // namespace heddle::cuda
