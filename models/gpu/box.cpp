// TMA boxes: placing a box in global memory from a tensormap, resolving its
// runs to memory regions, and the shared-memory swizzle (PTX ISA 5.5, tensor
// copies: bounding box, out-of-bound access, swizzling modes).
#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "models/gpu/bulk_internal.hpp"
#include "models/gpu/reduce.hpp"

namespace heddle::gpu {

Box desc_box(std::uint32_t c0, std::uint32_t c1) {
  Box b;
  b.label = fmt::format("box ({}, {})", c0, c1);
  b.place = [c0, c1](const std::byte* raw, std::source_location loc) {
    TmaDesc d;
    std::memcpy(&d, raw, sizeof d);
    if (c0 >= d.dims[0] || c1 >= d.dims[1])
      throw ModelError(fmt::format("box ({}, {}) is outside the {}x{} boxes of its tensormap", c0,
                                   c1, d.dims[0], d.dims[1]),
                       loc);
    BoxPlace p;
    p.box_bytes = d.box_bytes;
    p.runs.push_back(BoxRun{d.global_address + (std::uint64_t{c1} * d.dims[0] + c0) * d.box_bytes,
                            d.box_bytes, 0});
    return p;
  };
  return b;
}

namespace detail {

std::string box_text(const TensorMap& desc, const Box& box) {
  return fmt::format("{} {}", desc.region().name(), box.label);
}

void resolve_box(Staging& st, const BoxPlace& place, const TensorMap& desc,
                 std::size_t want_bytes, std::source_location loc) {
  if (place.box_bytes != want_bytes)
    throw ModelError(fmt::format("tensormap {} has {}-byte boxes, the shared buffer {} bytes",
                                 desc.region().name(), place.box_bytes, want_bytes),
                     loc);
  st.global.clear();
  st.swizzle = place.swizzle;
  st.box_bytes = place.box_bytes;
  for (const BoxRun& run : place.runs) {
    auto [region, offset] = current_grid().resolve(run.address, run.bytes);
    if (region == nullptr || offset % region->elem_size() != 0 || run.bytes % region->elem_size() != 0)
      throw ModelError(fmt::format("tensormap {} sends bytes {}..{} of its box to unmapped address "
                                   "{:#x}",
                                   desc.region().name(), run.box_offset,
                                   run.box_offset + run.bytes, run.address),
                       loc);
    if (!st.global.empty() && region != st.region())
      throw ModelError(fmt::format("tensormap {}: one box spans {} and {}", desc.region().name(),
                                   st.region()->name(), region->name()),
                       loc);
    const std::size_t e = region->elem_size();
    st.global.push_back(Piece{Span{region, offset / e, run.bytes / e}, run.box_offset});
  }
}

Footprint global_footprint(const Staging& st, bool write, const Reduction* red) {
  if (st.global.empty()) return {};
  Span cover = st.global.front().span;
  std::size_t last = cover.first + cover.count;
  for (const Piece& p : st.global) {
    cover.first = std::min(cover.first, p.span.first);
    last = std::max(last, p.span.first + p.span.count);
  }
  cover.count = last - cover.first;
  return Footprint{dst_entry(cover, write, red)};
}

namespace {
// The shared address bits a swizzle of `swizzle`-byte rows moves: bits 4..
// (4 + log2(swizzle / 16)) XOR the same number of bits from bit 7 (CuTe's
// Swizzle<3,4,3> for 128 bytes, <2,4,3> for 64, <1,4,3> for 32).
std::uint32_t swizzled(std::uint32_t address, std::uint32_t swizzle) {
  if (swizzle == 0) return address;
  const std::uint32_t mask = swizzle / 16 - 1;
  return address ^ ((address >> 7 & mask) << 4);
}

template <class Copy>
void each_chunk(std::uint32_t bytes, std::uint32_t swizzle, std::uint32_t address, Copy copy) {
  if (swizzle == 0) return copy(0u, 0u, bytes);
  for (std::uint32_t o = 0; o < bytes; o += 16)  // box bytes are whole 16-byte chunks
    copy(o, swizzled(address + o, swizzle) - address, std::min<std::uint32_t>(16, bytes - o));
}
}  // namespace

namespace {
// Copies between a box (dense) and shared span `smem` (swizzled at `address`).
void swizzle_copy(const Span& smem, std::byte* box, bool into_smem, std::uint32_t swizzle,
                  std::uint32_t address) {
  std::byte* base = data(smem);
  const auto bytes = static_cast<std::uint32_t>(smem.bytes());
  each_chunk(bytes, swizzle, address, [&](std::uint32_t dense, std::uint32_t at, std::uint32_t n) {
    if (at + n > bytes)
      throw ModelError(fmt::format("a swizzled TMA box leaves its shared buffer {} (align it to "
                                   "{} bytes)",
                                   span_text(smem), swizzle * 8));
    if (into_smem) std::memcpy(base + at, box + dense, n);
    else std::memcpy(box + dense, base + at, n);
  });
}
}  // namespace

void to_smem(const Span& dst, const std::byte* box, std::uint32_t swizzle, std::uint32_t address) {
  swizzle_copy(dst, const_cast<std::byte*>(box), true, swizzle, address);  // only read from
}

void from_smem(std::byte* box, const Span& src, std::uint32_t swizzle, std::uint32_t address) {
  swizzle_copy(src, box, false, swizzle, address);
}

}  // namespace detail
}  // namespace heddle::gpu
