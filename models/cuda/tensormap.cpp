#include "models/cuda/tensormap.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>

#include "checker/engine/errors.hpp"
#include "models/ptx/tensormap.hpp"

namespace heddle::cuda {
namespace {

// Bytes per element of CUtensorMapDataType (cuda.h: UINT8 = 0 ... TFLOAT32_FTZ = 12).
std::uint32_t element_bytes(int data_type) {
  constexpr std::uint32_t kBytes[] = {1, 2, 4, 4, 8, 8, 2, 4, 8, 2, 4, 4, 4};
  if (data_type < 0 || data_type >= static_cast<int>(std::size(kBytes)))
    throw UsageError(fmt::format("cuTensorMapEncodeTiled: data type {} (a packed sub-byte type) "
                                 "is not modelled by heddle",
                                 data_type));
  return kBytes[data_type];
}

// CUtensorMapSwizzle: NONE, 32B, 64B, 128B as bytes of the pattern's row.
std::uint32_t swizzle_bytes(int swizzle) {
  if (swizzle < 0 || swizzle > 3)
    throw UsageError(fmt::format("cuTensorMapEncodeTiled: swizzle mode {} (the 128-byte atom "
                                 "variants) is not modelled by heddle",
                                 swizzle));
  return swizzle == 0 ? 0 : 16u << swizzle;
}

// The driver API's rules for each dimension; "" when they hold.
std::string dimension_problem(const TiledArgs& a, std::uint32_t elem, std::uint32_t swizzle) {
  for (unsigned d = 0; d < a.rank; ++d) {
    if (a.dims[d] == 0 || a.dims[d] > (std::uint64_t{1} << 32))
      return fmt::format("globalDim[{}] = {} (1 to 2^32)", d, a.dims[d]);
    if (a.box[d] == 0 || a.box[d] > 256) return fmt::format("boxDim[{}] = {} (1 to 256)", d, a.box[d]);
    if (a.element_strides[d] == 0 || a.element_strides[d] > 8)
      return fmt::format("elementStrides[{}] = {} (1 to 8)", d, a.element_strides[d]);
    if (d > 0 && (a.strides[d - 1] % 16 != 0 || a.strides[d - 1] >= (std::uint64_t{1} << 40)))
      return fmt::format("globalStrides[{}] = {} (a multiple of 16 below 2^40)", d - 1, a.strides[d - 1]);
  }
  if (a.box[0] * elem % 16 != 0)
    return fmt::format("boxDim[0] * element size = {} bytes (a multiple of 16)", a.box[0] * elem);
  if (swizzle != 0 && a.box[0] * elem > swizzle)
    return fmt::format("boxDim[0] * element size = {} bytes exceeds the {}-byte swizzle",
                       a.box[0] * elem, swizzle);
  return "";
}

}  // namespace

std::string encode_tiled(void* out, const TiledArgs& a) {
  const std::uint32_t elem = element_bytes(a.data_type);
  if (a.interleave != 0)
    throw UsageError("cuTensorMapEncodeTiled: interleaved layouts are not modelled by heddle");
  if (a.oob_fill != 0)
    throw UsageError("cuTensorMapEncodeTiled: the NaN out-of-bound fill is not modelled by heddle "
                     "(zeros are)");
  const std::uint32_t swizzle = swizzle_bytes(a.swizzle);
  if (a.rank < 1 || a.rank > 5) return fmt::format("tensorRank {} (1 to 5)", a.rank);
  if (reinterpret_cast<std::uintptr_t>(a.address) % 16 != 0)
    return fmt::format("globalAddress {} is not 16-byte aligned", a.address);
  if (std::string why = dimension_problem(a, elem, swizzle); !why.empty()) return why;
  ptx::TensorShape s;
  s.address = reinterpret_cast<std::uintptr_t>(a.address);
  s.rank = a.rank;
  s.elem = elem;
  s.swizzle = swizzle;
  for (unsigned d = 0; d < a.rank; ++d) {
    s.dims[d] = static_cast<std::uint32_t>(std::min<std::uint64_t>(a.dims[d], 0xffffffffu));
    s.box[d] = a.box[d];
    s.elem_strides[d] = a.element_strides[d];
    if (d > 0) s.strides[d - 1] = a.strides[d - 1];
  }
  auto* bytes = static_cast<std::byte*>(out);
  std::fill(bytes, bytes + 128, std::byte{0});
  ptx::encode_shape(bytes, s);
  return "";
}

}  // namespace heddle::cuda
