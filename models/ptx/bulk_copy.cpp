// The non-tensor bulk copies (PTX ISA 9.7.9.25.4.1 cp.async.bulk): shared
// <- global and shared::cluster <- shared::cta, completing with complete_tx
// on an mbarrier in the destination CTA; global <- shared::cta in the
// issuing warp's bulk async-groups. cp.reduce.async.bulk (9.7.9.25.4.2)
// combines shared into global memory the same way. The copies are
// models/gpu's bulk_load, bulk_store and bulk_reduce (async agents, async
// proxy); an .L2::cache_hint operand changes nothing modelled.
#include <fmt/format.h>

#include "models/gpu/reduce.hpp"
#include "models/ptx/warp.hpp"

namespace heddle::ptx {
namespace {

const Type kU32{Type::Kind::u, 4};

// Size operand: a multiple of 16 bytes (PTX ISA 9.7.9.25.4.1).
std::uint32_t copy_size(Warp& w, const Instr& in, int lane) {
  auto n = static_cast<std::uint32_t>(w.value(in.args.at(2), lane, kU32));
  if (n == 0 || n % 16 != 0)
    throw ModelError(fmt::format("`{}` copies {} bytes: the size must be a non-zero multiple of 16",
                                 in.opcode, n),
                     in.loc);
  return n;
}

// The span of `bytes` at operand `a`: global, or shared (.shared::cluster
// when `cluster`: a peer CTA's address allowed; else the issuing CTA's own).
gpu::Span span_at(Warp& w, const Instr& in, const Arg& a, int lane, Space space, std::uint32_t bytes,
                  bool cluster = false) {
  if (space == Space::shared) {
    Instr s = in;  // the operand's own state space, whatever the opcode's first one is
    s.space = Space::shared;
    s.cluster = cluster;
    auto [cta, off] = shared_target(w, s, a, lane);
    auto [r, first] = w.state.resolve(Space::shared, off, bytes, cta, s);
    return gpu::Span{r, first, bytes};
  }
  auto [r, first] = w.memory(in, a, lane, space, bytes);
  return gpu::Span{r, first, bytes};
}

// A copy into shared memory: complete_tx on the destination CTA's mbarrier.
void load(Warp& w, const Instr& in, int lane) {
  const std::uint32_t n = copy_size(w, in, lane);
  const bool from_shared = in.mods.at(3) == "shared::cta";  // cp.async.bulk.shared::cluster.<src>
  gpu::Span dst = span_at(w, in, in.args.at(0), lane, Space::shared, n, true);
  gpu::Span src = span_at(w, in, in.args.at(1), lane, from_shared ? Space::shared : Space::global, n);
  auto [bar_cta, bar_off] = shared_target(w, in, in.args.at(3), lane);
  auto [dst_cta, dst_off] = shared_target(w, in, in.args.at(0), lane);
  (void)dst_off;
  if (from_shared && bar_cta != dst_cta)
    throw ModelError(fmt::format("`{}`: the mbarrier must be in the destination CTA (rank {}), not "
                                 "rank {} (PTX ISA 9.7.9.25.4.1)",
                                 in.opcode, dst_cta % w.state.launch().cluster_size(),
                                 bar_cta % w.state.launch().cluster_size()),
                     in.loc);
  gpu::Mbarrier& bar = mbarrier_at(w, in, bar_cta, bar_off);
  if (bar_cta != w.thread.cta) {
    // The issue announces bytes in flight to a peer's mbarrier (as a
    // multicast load does, models/gpu/multicast.cpp): a visible step, so
    // that DPOR orders it against the peer's own arrivals there.
    PendingOp p;
    p.name = "cp.async.bulk.shared::cluster";
    p.loc = in.loc;
    p.object = bar.id();
    p.has_object = true;
    p.footprint.push_back(all_phases(bar.id()));
    Execution::current().visible(std::move(p));
  }
  gpu::bulk_load(dst, src, bar, in.loc);
}

}  // namespace

gpu::Reduction ptx_reduction(const Instr& in) {
  using gpu::ReduceOp;
  ReduceOp op = ReduceOp::add;
  const std::pair<const char*, ReduceOp> ops[] = {
      {"add", ReduceOp::add},     {"min", ReduceOp::min},        {"max", ReduceOp::max},
      {"inc", ReduceOp::inc},     {"dec", ReduceOp::dec},        {"and", ReduceOp::bit_and},
      {"or", ReduceOp::bit_or},   {"xor", ReduceOp::bit_xor}};
  bool found = false;
  for (auto [name, o] : ops)
    if (in.has(name)) op = o, found = true;
  const Type& t = in.type;
  if (!found || t.bytes < 4)
    throw ModelError(fmt::format("`{}`: this reduction is not modelled (.add .min .max .inc .dec .and "
                                 ".or .xor on 32- and 64-bit types)",
                                 in.opcode),
                     in.loc);
  if (t.is_float()) return t.bytes == 4 ? gpu::reduction<float>(op) : gpu::reduction<double>(op);
  if (t.is_signed()) return t.bytes == 4 ? gpu::reduction<std::int32_t>(op) : gpu::reduction<std::int64_t>(op);
  return t.bytes == 4 ? gpu::reduction<std::uint32_t>(op) : gpu::reduction<std::uint64_t>(op);
}

void run_bulk_copy(Warp& w, const Instr& in, std::uint32_t exec) {  // one copy per lane
  if (in.op == Op::bulk_reduce && in.has("tensor")) return run_tma(w, in, exec);
  for (int l = 0; l < 32; ++l) {
    if (!(exec >> l & 1)) continue;
    if (in.op == Op::bulk_copy && !in.has("bulk_group")) {
      load(w, in, l);
      continue;
    }
    const std::uint32_t n = copy_size(w, in, l);
    gpu::Span dst = span_at(w, in, in.args.at(0), l, Space::global, n);
    gpu::Span src = span_at(w, in, in.args.at(1), l, Space::shared, n);
    if (in.op == Op::bulk_copy) gpu::bulk_store(dst, src, in.loc);
    else gpu::bulk_reduce(dst, src, ptx_reduction(in), in.loc);
  }
}

}  // namespace heddle::ptx
