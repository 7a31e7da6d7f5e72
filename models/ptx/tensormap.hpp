// The PTX front end's tensormaps: the 128-byte object holds the tensor as
// the CUDA driver's cuTensorMapEncodeTiled describes it (rank 1 to 5,
// global address, dimensions and strides, box, element strides, element
// size, swizzle), laid out as TensorShape from byte 0. A TMA operation
// places its box from these fields when its copy reads the tensormap (PTX
// ISA 5.5, tensor copies): rows of the box are runs of global memory at the
// tensor's strides, parts outside the tensor are zero-filled (loads) or
// skipped (stores), and shared memory holds the box densely, swizzled.
#pragma once
#include <cstddef>
#include <cstdint>
#include <source_location>
#include <string>

#include "models/gpu/gpu.hpp"

namespace heddle::ptx {

/// The fields of a tensormap (PTX ISA 9.7.9.27 tensormap.replace names them).
/// `address` is first, where models/gpu's tensormap_replace_global_address writes.
struct TensorShape {
  std::uint64_t address = 0;                         // global_address
  std::uint64_t strides[4] = {0, 0, 0, 0};           // global_stride of dims 1..4, bytes
  std::uint32_t dims[5] = {1, 1, 1, 1, 1};           // global_dim, elements
  std::uint32_t box[5] = {1, 1, 1, 1, 1};            // box_dim, elements
  std::uint32_t elem_strides[5] = {1, 1, 1, 1, 1};   // element_stride (traversal stride)
  std::uint32_t rank = 2;                            // dimensions in use (1..5)
  std::uint32_t elem = 4;                            // element bytes
  std::uint32_t swizzle = 0;                         // 0 (none), 32, 64 or 128 bytes
};
static_assert(sizeof(TensorShape) <= 128, "a tensormap is 128 bytes");

/// Sets `s.strides` to those of a dense tensor of its dimensions.
void dense_strides(TensorShape& s);
/// Why `s` cannot be used ("" when it can): a rank outside 1..5, a zero
/// dimension or box, a swizzle other than 0/32/64/128 or narrower than the box's rows.
std::string shape_problem(const TensorShape& s);
/// Writes `s` into `bytes` (128 of them).
void encode_shape(std::byte* bytes, const TensorShape& s);
/// The shape stored in `bytes`.
TensorShape decode_shape(const std::byte* bytes);
/// Places the box at element coordinates `coords` (`n` of them, the op's
/// dimensionality, signed as PTX gives them); ModelError when the count
/// differs from the rank, the shape is unusable or an element stride is not 1.
gpu::BoxPlace place_box(const TensorShape& s, const std::int32_t* coords, std::size_t n,
                        const std::string& map_name, std::source_location loc);

}  // namespace heddle::ptx
