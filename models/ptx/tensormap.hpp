// The PTX front end's tensormaps: models/gpu's TmaDesc (a tensor stored box
// after box, each box one contiguous run) in bytes 0-23 of the 128-byte
// object, and from byte 64 the tensor's shape as PTX sees it: rank 1 to 5,
// box and global dimensions in elements, element size, global strides.
// An N-dimensional box grid is flattened onto TmaDesc's two box coordinates
// (dims[0] boxes along dimension 0, dims[1] the product of the others).
#pragma once
#include <cstddef>
#include <cstdint>
#include <source_location>
#include <string>

#include "models/gpu/gpu.hpp"

namespace heddle::ptx {

/// The shape fields of a tensormap (PTX ISA 9.7.9.27 tensormap.replace names them).
struct TensorShape {
  std::uint32_t box[5] = {1, 1, 1, 1, 1};    // box_dim, elements
  std::uint32_t dims[5] = {1, 1, 1, 1, 1};   // global_dim, elements
  std::uint32_t rank = 2;                    // dimensions in use (1..5)
  std::uint32_t elem = 4;                    // element bytes
  std::uint32_t strides[4] = {0, 0, 0, 0};   // global_stride of dims 1..4, bytes (dense_strides)
};

/// Where TensorShape lives in the 128 bytes (after TmaDesc's fields).
inline constexpr std::size_t kShapeAt = 64;
static_assert(kShapeAt + sizeof(TensorShape) <= 128, "a tensormap is 128 bytes");

/// Sets `s.strides` to those of a dense tensor of its dimensions.
void dense_strides(TensorShape& s);
/// Why `s` cannot be encoded ("" when it can): a box that does not tile its
/// dimension, a non-dense stride, a zero.
std::string shape_problem(const TensorShape& s);
/// Writes `s` and the TmaDesc it implies (box grid, box bytes) into `bytes`
/// (128 of them), keeping the global address there.
void encode_shape(std::byte* bytes, const TensorShape& s);
/// The shape stored in `bytes`.
TensorShape decode_shape(const std::byte* bytes);
/// The flattened box coordinates (TmaDesc c0, c1) of element coordinates
/// `coords` (`n` of them, the op's dimensionality); ModelError when the
/// count differs from the rank or a coordinate is not a box corner.
std::pair<std::uint32_t, std::uint32_t> box_coordinates(const TensorShape& s, const std::uint32_t* coords,
                                                        std::size_t n, const std::string& map_name,
                                                        std::source_location loc);

}  // namespace heddle::ptx
