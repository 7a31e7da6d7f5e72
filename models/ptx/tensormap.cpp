#include "models/ptx/tensormap.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

namespace heddle::ptx {

void dense_strides(TensorShape& s) {
  std::uint64_t dense = s.elem;
  for (std::uint32_t k = 1; k < 5; ++k) {
    dense *= s.dims[k - 1];
    s.strides[k - 1] = dense;
  }
}

std::string shape_problem(const TensorShape& s) {
  if (s.rank < 1 || s.rank > 5) return fmt::format("rank {} (1 to 5)", s.rank);
  if (s.elem == 0) return "0-byte elements";
  if (s.swizzle != 0 && s.swizzle != 32 && s.swizzle != 64 && s.swizzle != 128)
    return fmt::format("swizzle of {} bytes (0, 32, 64 or 128)", s.swizzle);
  for (std::uint32_t k = 0; k < s.rank; ++k) {
    if (s.box[k] == 0 || s.dims[k] == 0)
      return fmt::format("dimension {} of {} elements with a box of {}", k, s.dims[k], s.box[k]);
  }
  if (s.swizzle != 0 && s.box[0] * s.elem > s.swizzle)
    return fmt::format("box rows of {} bytes wider than the {}-byte swizzle", s.box[0] * s.elem, s.swizzle);
  return "";
}

void encode_shape(std::byte* bytes, const TensorShape& s) { std::memcpy(bytes, &s, sizeof s); }

TensorShape decode_shape(const std::byte* bytes) {
  TensorShape s;
  std::memcpy(&s, bytes, sizeof s);
  return s;
}

namespace {
// Appends a run, merged with the last one when both continue it (a dense box).
void add_run(gpu::BoxPlace& p, std::uint64_t address, std::uint32_t bytes, std::uint32_t box_offset) {
  if (!p.runs.empty()) {
    gpu::BoxRun& last = p.runs.back();
    if (last.address + last.bytes == address && last.box_offset + last.bytes == box_offset) {
      last.bytes += bytes;
      return;
    }
  }
  p.runs.push_back(gpu::BoxRun{address, bytes, box_offset});
}
}  // namespace

gpu::BoxPlace place_box(const TensorShape& s, const std::int32_t* coords, std::size_t n,
                        const std::string& map_name, std::source_location loc) {
  if (std::string why = shape_problem(s); !why.empty())
    throw ModelError(fmt::format("tensormap {}: {}", map_name, why), loc);
  if (n != s.rank)
    throw ModelError(fmt::format("a {}-d TMA operation on tensormap {} of rank {}", n, map_name, s.rank), loc);
  for (std::uint32_t k = 0; k < s.rank; ++k)
    if (s.elem_strides[k] != 1)
      throw ModelError(fmt::format("tensormap {}: element stride {} along dimension {} is not "
                                   "modelled (1 only)",
                                   map_name, s.elem_strides[k], k),
                       loc);
  gpu::BoxPlace p;
  p.swizzle = s.swizzle;
  std::uint64_t rows = 1;
  for (std::uint32_t k = 1; k < s.rank; ++k) rows *= s.box[k];
  p.box_bytes = static_cast<std::uint32_t>(rows * s.box[0] * s.elem);
  // Dimension 0 of every row, clipped to the tensor (PTX ISA 5.5.6: the
  // out-of-bound part of a box is zero-filled on load, not written on store).
  const std::int64_t lo = std::max<std::int64_t>(coords[0], 0);
  const std::int64_t hi = std::min<std::int64_t>(std::int64_t{coords[0]} + s.box[0], s.dims[0]);
  if (lo >= hi) return p;
  for (std::uint64_t r = 0; r < rows; ++r) {
    std::uint64_t address = s.address + static_cast<std::uint64_t>(lo) * s.elem, rest = r;
    bool inside = true;
    for (std::uint32_t k = 1; k < s.rank && inside; ++k) {
      const std::int64_t c = std::int64_t{coords[k]} + static_cast<std::int64_t>(rest % s.box[k]);
      rest /= s.box[k];
      inside = c >= 0 && c < s.dims[k];
      address += static_cast<std::uint64_t>(c) * s.strides[k - 1];
    }
    if (!inside) continue;
    add_run(p, address, static_cast<std::uint32_t>((hi - lo) * s.elem),
            static_cast<std::uint32_t>((r * s.box[0] + static_cast<std::uint64_t>(lo - coords[0])) * s.elem));
  }
  return p;
}

}  // namespace heddle::ptx
