#include "models/cuda/tensormap.hpp"

#include <fmt/format.h>

#include "checker/engine/errors.hpp"
#include "models/ptx/launch.hpp"

namespace heddle::cuda {
namespace {

// Bytes per element of CUtensorMapDataType (cuda.h: UINT8 = 0 ... TFLOAT32_FTZ = 12).
int element_bytes(int data_type) {
  constexpr int kBytes[] = {1, 2, 4, 4, 8, 8, 2, 4, 8, 2, 4, 4, 4};
  if (data_type < 0 || data_type >= static_cast<int>(std::size(kBytes)))
    throw UsageError(fmt::format("cuTensorMapEncodeTiled: data type {} (a packed sub-byte type) "
                                 "is not modelled by heddle",
                                 data_type));
  return kBytes[data_type];
}

}  // namespace

void encode_tiled(void* out, int data_type, unsigned rank, const void* address,
                  const std::uint64_t* dims, const std::uint64_t* strides,
                  const std::uint32_t* box, const std::uint32_t* element_strides) {
  const int elem = element_bytes(data_type);
  if (rank < 1 || rank > 5)
    throw UsageError(fmt::format("cuTensorMapEncodeTiled: rank {} is not 1 to 5", rank));
  std::uint32_t shape[2] = {static_cast<std::uint32_t>(dims[0]), 1}, tile[2] = {box[0], 1};
  for (unsigned d = 1; d < rank; ++d) {
    if (d >= 2 && (dims[d] != 1 || box[d] != 1))
      throw UsageError(fmt::format("cuTensorMapEncodeTiled: a rank-{} tensor ({} along dimension "
                                   "{}): heddle's TMA model moves 1- and 2-dimensional tensors",
                                   rank, dims[d], d));
    if (d == 1) {
      shape[1] = static_cast<std::uint32_t>(dims[1]);
      tile[1] = box[1];
      if (strides[0] != dims[0] * static_cast<std::uint64_t>(elem))
        throw UsageError(fmt::format("cuTensorMapEncodeTiled: rows {} bytes apart for {} elements "
                                     "of {} bytes: heddle's TMA model needs dense rows",
                                     strides[0], dims[0], elem));
    }
  }
  for (unsigned d = 0; d < rank; ++d)
    if (element_strides != nullptr && element_strides[d] != 1)
      throw UsageError("cuTensorMapEncodeTiled: element strides other than 1 are not modelled");
  if (tile[1] != 1 && tile[0] != shape[0])
    throw UsageError(fmt::format("cuTensorMapEncodeTiled: a {}x{} box of a {}x{} tensor: "
                                 "heddle's TMA model moves boxes of one row or of whole rows",
                                 tile[0], tile[1], shape[0], shape[1]));
  if (shape[0] % tile[0] != 0 || shape[1] % tile[1] != 0)
    throw UsageError(fmt::format("cuTensorMapEncodeTiled: the {}x{} box does not tile the {}x{} "
                                 "tensor (heddle models whole boxes only)",
                                 tile[0], tile[1], shape[0], shape[1]));
  auto* bytes = static_cast<std::uint8_t*>(out);
  std::fill(bytes, bytes + 128, std::uint8_t{0});
  ptx::encode_tensormap(bytes, reinterpret_cast<std::uint64_t>(address), shape, tile,
                        static_cast<std::uint32_t>(elem));
}

}  // namespace heddle::cuda
