// cp.async.bulk.tensor (PTX ISA 9.7.9.25.5.1): TMA loads, multicast loads
// and stores of tiles of 1 to 5 dimensions, on models/gpu's tensor_load,
// tensor_load_multicast and tensor_store; cp.async.bulk.prefetch(.tensor)
// (9.7.9.25.4.4, 9.7.9.25.5.3), which only warms the L2 cache: no memory
// effect, nothing to order. An .L2::cache_hint operand is read past: a
// cache policy changes no value and no ordering.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <fmt/ranges.h>
#include <vector>

#include "models/gpu/multicast.hpp"
#include "models/gpu/reduce.hpp"
#include "models/ptx/tensormap.hpp"
#include "models/ptx/warp.hpp"

namespace heddle::ptx {
namespace {


// The tile dimensionality of a TMA opcode (.1d ... .5d).
std::size_t tile_dims(const Instr& in) {
  for (const std::string& m : in.mods)
    if (m.size() == 2 && m[1] == 'd' && m[0] >= '1' && m[0] <= '5') return static_cast<std::size_t>(m[0] - '0');
  throw ModelError(fmt::format("`{}`: name the tile's dimensions (.1d to .5d)", in.opcode), in.loc);
}

// The box of a TMA op at its element coordinates: placed from the
// tensormap's fields when the copy reads it (tensormap.hpp), its first byte
// at shared address `smem` (the swizzle follows address bits 4-9).
gpu::Box box_of(Warp& w, const Instr& in, const Arg& a, int lane, const gpu::TensorMap& map,
                std::uint64_t smem) {
  const std::size_t n = tile_dims(in);
  if (a.elems.size() != n)
    throw ModelError(fmt::format("`{}` gives {} coordinates for a {}-d tile", in.opcode, a.elems.size(), n),
                     in.loc);
  std::array<std::int32_t, 5> c{};
  for (std::size_t k = 0; k < n; ++k) c[k] = static_cast<std::int32_t>(w.value(a.elems[k], lane, kU32));
  gpu::Box box;
  box.label = fmt::format("box ({})", fmt::join(c.begin(), c.begin() + static_cast<std::ptrdiff_t>(n), ", "));
  box.place = [c, n, name = map.region().name()](const std::byte* raw, std::source_location loc) {
    return place_box(decode_shape(raw), c.data(), n, name, loc);
  };
  box.smem_address = static_cast<std::uint32_t>(smem);
  return box;
}

// The box bytes of tensormap `map` as it is now (the shared buffer's size).
std::uint32_t box_bytes(const Instr& in, const gpu::TensorMap& map) {
  TensorShape s = decode_shape(map.region().bytes() + map.first());
  if (std::string why = shape_problem(s); !why.empty())
    throw ModelError(fmt::format("`{}`: tensormap {}: {}", in.opcode, map.region().name(), why), in.loc);
  std::uint64_t bytes = s.elem;
  for (std::uint32_t k = 0; k < s.rank; ++k) bytes *= s.box[k];
  return static_cast<std::uint32_t>(bytes);
}

gpu::Span shared_span(Warp& w, const Instr& in, const Arg& a, int lane, std::uint32_t bytes) {
  Instr shared = in;
  shared.space = Space::shared;
  auto [r, off] = w.memory(shared, a, lane, Space::shared, bytes);
  return gpu::Span{r, off, bytes};
}

// .multicast::cluster (PTX ISA 9.7.9.25.5.1): the box goes to the same
// CTA-relative offset of each CTA in ctaMask, completing on the mbarrier at
// the same offset there; the issuing CTA's own address names the offsets.
void multicast_load(Warp& w, const Instr& in, int lane, const gpu::TensorMap& map, const gpu::Box& box,
                    std::uint32_t bytes) {
  const int ctas = w.state.launch().ctas();
  auto [dst_cta, dst_off] = shared_target(w, in, in.args.at(0), lane);
  auto [bar_cta, bar_off] = shared_target(w, in, in.args.at(2), lane);
  (void)dst_cta, (void)bar_cta;
  const auto mask = static_cast<std::uint16_t>(w.value(in.args.at(3), lane, Type{Type::Kind::b, 2}));
  const int size = w.state.launch().cluster_size(), base = w.thread.cta - w.thread.cta % size;
  std::vector<gpu::Span> dst;
  std::vector<gpu::Mbarrier*> bars(static_cast<std::size_t>(ctas), nullptr);
  for (int c = 0; c < ctas; ++c) {
    auto [r, off] = w.state.resolve(Space::shared, dst_off, bytes, c, in);
    dst.push_back(gpu::Span{r, off, bytes});
  }
  for (int r = 0; r < size && r < 16; ++r)
    if (mask >> r & 1u) bars[static_cast<std::size_t>(base + r)] = &mbarrier_at(w, in, base + r, bar_off);
  gpu::tensor_load_multicast(dst, map, box, gpu::PerCta<gpu::Mbarrier*>(bars), mask, in.loc);
}

}  // namespace

void replace_field(Warp& w, const Instr& in, std::uint32_t exec) {  // once per lane
  const Space space = in.has("shared::cta") ? Space::shared : Space::global;
  for (int l = 0; l < 32; ++l) {
    if (!(exec >> l & 1)) continue;
    gpu::TensorMap map = tensormap(w, in, in.args.at(0), l, space);
    if (in.has("global_address")) {
      gpu::tensormap_replace_global_address(map, w.value(in.args.at(1), l, Type{Type::Kind::u, 8}), in.loc);
      continue;
    }
    // PTX ISA 9.7.9.27: a weak generic write of the whole 1024-bit object.
    map.region().access(map.first(), 128, true, Proxy::generic, "tensormap.replace", in.loc);
    const auto ord = static_cast<std::uint32_t>(w.value(in.args.at(1), l, kU32));
    const std::uint64_t v = w.value(in.args.at(2), l, Type{Type::Kind::u, 8});
    const bool stride = in.has("global_stride");
    if (ord >= (stride ? 4u : 5u) || (!stride && v > 0xffffffffull))
      throw ModelError(fmt::format("`{}`: field {} = {} is outside the tensormap ({})", in.opcode,
                                   ord, v, stride ? "ord 0 to 3" : "ord 0 to 4, 32-bit values"),
                       in.loc);
    std::byte* raw = map.region().bytes() + map.first();
    TensorShape s = decode_shape(raw);
    const auto value = static_cast<std::uint32_t>(v);
    if (in.has("global_dim")) s.dims[ord] = value;
    if (in.has("box_dim")) s.box[ord] = value;
    if (in.has("element_stride")) s.elem_strides[ord] = value;  // a TMA op refuses any but 1
    if (stride) s.strides[ord] = v;
    encode_shape(raw, s);  // the box grid follows; an op checks the whole shape
  }
}

namespace {
// What a tensor store copies: the tensormap, the shared source and the
// coordinates. Lanes of one instruction with the same operands issue one
// store (see run_tma).
struct StoreOperands {
  const Region* map = nullptr;
  std::size_t map_offset = 0;
  std::uint64_t smem = 0;
  std::array<std::uint64_t, 5> coords{};
  bool operator==(const StoreOperands&) const = default;
};

StoreOperands store_operands(Warp& w, const Instr& in, int lane) {
  const Arg& map_arg = in.args.at(0);
  auto [r, off] = w.memory(in, map_arg, lane, Space::generic, 128);
  StoreOperands o{r, off, w.address(in.args.at(1), lane), {}};
  for (std::size_t k = 0; k < map_arg.elems.size() && k < 5; ++k) o.coords[k] = w.value(map_arg.elems[k], lane, kU32);
  return o;
}
}  // namespace

// One copy per lane, except that the lanes of a tensor store with the same
// operands issue it once. CUDA code issues TMA stores from a whole warp
// (CUTLASS's epilogue: `issue_tma_store = warp_idx == 0`): SASS issues a
// TMA instruction once per warp from uniform registers, and the copies the
// per-thread reading would add are the same bytes to the same place at the
// same point of the program, so one copy covers every order and value they
// could give. Loads and reductions stay per lane (each lane's load adds its
// bytes to the mbarrier's transaction count; reductions do not repeat idempotently).
void run_tma(Warp& w, const Instr& in, std::uint32_t exec) {
  if (in.op == Op::prefetch) return;  // L2 only: no memory effect
  const bool plain_store = in.op != Op::tma_load && in.op != Op::bulk_reduce;
  std::array<StoreOperands, 32> issued{};
  std::size_t n_issued = 0;
  for (int l = 0; l < 32; ++l) {
    if (!(exec >> l & 1)) continue;
    if (plain_store) {
      const StoreOperands o = store_operands(w, in, l);
      if (std::find(issued.begin(), issued.begin() + static_cast<std::ptrdiff_t>(n_issued), o) !=
          issued.begin() + static_cast<std::ptrdiff_t>(n_issued))
        continue;
      issued[n_issued++] = o;
    }
    const bool load = in.op == Op::tma_load;
    const Arg& map_arg = in.args.at(load ? 1 : 0);
    const Arg& smem_arg = in.args.at(load ? 0 : 1);
    gpu::TensorMap map = tensormap(w, in, map_arg, l, Space::generic);
    const std::uint32_t bytes = box_bytes(in, map);
    const gpu::Box box = box_of(w, in, map_arg, l, map, w.address(smem_arg, l));
    if (load && in.has("multicast::cluster")) {
      multicast_load(w, in, l, map, box, bytes);
      continue;
    }
    gpu::Span smem = shared_span(w, in, smem_arg, l, bytes);
    if (load)
      gpu::tensor_load(smem, map, box, mbarrier(w, in, in.args.at(2), l), in.loc);
    else if (in.op == Op::bulk_reduce)  // cp.reduce.async.bulk.tensor (PTX ISA 9.7.9.25.5.2)
      gpu::tensor_reduce(map, box, smem, ptx_reduction(in), in.loc);
    else
      gpu::tensor_store(map, box, smem, in.loc);
  }
}

}  // namespace heddle::ptx
