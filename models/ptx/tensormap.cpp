#include "models/ptx/tensormap.hpp"

#include <fmt/format.h>

#include <cstring>

namespace heddle::ptx {

void dense_strides(TensorShape& s) {
  std::uint64_t dense = s.elem;
  for (std::uint32_t k = 1; k < 5; ++k) {
    dense *= s.dims[k - 1];
    s.strides[k - 1] = static_cast<std::uint32_t>(dense);
  }
}

std::string shape_problem(const TensorShape& s) {
  if (s.rank < 1 || s.rank > 5) return fmt::format("rank {} (1 to 5)", s.rank);
  if (s.elem == 0) return "0-byte elements";
  std::uint64_t dense = s.elem;
  for (std::uint32_t k = 0; k < s.rank; ++k) {
    if (s.box[k] == 0 || s.dims[k] == 0 || s.dims[k] % s.box[k] != 0)
      return fmt::format("the box {} does not tile dimension {} of {}", s.box[k], k, s.dims[k]);
    if (k > 0 && s.strides[k - 1] != dense)
      return fmt::format("global_stride {} of dimension {} is not the dense {} bytes (the model "
                         "stores a tensor box after box)",
                         s.strides[k - 1], k, dense);
    dense *= s.dims[k];
  }
  return "";
}

void encode_shape(std::byte* bytes, const TensorShape& s) {
  std::memcpy(bytes + kShapeAt, &s, sizeof s);
  if (!shape_problem(s).empty()) return;  // a TMA op on it is refused (box_coordinates' caller)
  gpu::TmaDesc d;
  std::memcpy(&d, bytes, sizeof d);
  d.box_bytes = s.elem;
  d.dims[0] = s.dims[0] / s.box[0];
  d.dims[1] = 1;
  for (std::uint32_t k = 0; k < s.rank; ++k) d.box_bytes *= s.box[k];
  for (std::uint32_t k = 1; k < s.rank; ++k) d.dims[1] *= s.dims[k] / s.box[k];
  std::memcpy(bytes, &d, sizeof d);
}

TensorShape decode_shape(const std::byte* bytes) {
  TensorShape s;
  std::memcpy(&s, bytes + kShapeAt, sizeof s);
  return s;
}

std::pair<std::uint32_t, std::uint32_t> box_coordinates(const TensorShape& s, const std::uint32_t* coords,
                                                        std::size_t n, const std::string& map_name,
                                                        std::source_location loc) {
  if (n != s.rank)
    throw ModelError(fmt::format("a {}-d TMA operation on tensormap {} of rank {}", n, map_name, s.rank),
                     loc);
  std::uint32_t flat = 0, scale = 1;
  for (std::uint32_t k = 0; k < s.rank; ++k) {
    if (s.box[k] == 0 || coords[k] % s.box[k] != 0)
      throw ModelError(fmt::format("coordinate {} = {} is not at a box corner of tensormap {} (box "
                                   "dimension {}); the model moves whole boxes",
                                   k, coords[k], map_name, s.box[k]),
                       loc);
    if (coords[k] >= s.dims[k])
      throw ModelError(fmt::format("coordinate {} = {} is outside dimension {} of tensormap {} ({} "
                                   "elements)",
                                   k, coords[k], k, map_name, s.dims[k]),
                       loc);
    if (k == 0) continue;
    flat += coords[k] / s.box[k] * scale;
    scale *= s.dims[k] / s.box[k];
  }
  return {coords[0] / s.box[0], flat};
}

}  // namespace heddle::ptx
