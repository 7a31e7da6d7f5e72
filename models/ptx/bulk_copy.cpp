// The non-tensor bulk copies (PTX ISA 9.7.9.25.4.1 cp.async.bulk): shared
// <- global (also .multicast::cluster) and shared::cluster <- shared::cta, completing with complete_tx
// on an mbarrier in the destination CTA; global <- shared::cta in the
// issuing warp's bulk async-groups. cp.reduce.async.bulk (9.7.9.25.4.2)
// combines shared into global memory the same way. The copies are
// models/gpu's bulk_load, bulk_store and bulk_reduce (async agents, async
// proxy); an .L2::cache_hint operand changes nothing modelled.
#include <fmt/format.h>

#include <vector>

#include "models/gpu/reduce.hpp"
#include "models/ptx/warp.hpp"

namespace heddle::ptx {
namespace {


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

// The issue announces bytes in flight to a peer's mbarrier (as a multicast
// TMA load does, models/gpu/multicast.cpp): a visible step writing each, so
// that DPOR orders it against the peers' own arrivals there.
void announce(const Instr& in, const std::vector<gpu::Mbarrier*>& bars) {
  PendingOp p;
  p.name = in.has("multicast::cluster") ? "cp.async.bulk.multicast::cluster" : "cp.async.bulk.shared::cluster";
  p.loc = in.loc;
  p.object = bars.front()->id();
  p.has_object = true;
  for (const gpu::Mbarrier* b : bars) p.footprint.push_back(all_phases(b->id()));
  Execution::current().visible(std::move(p));
}

// .multicast::cluster (PTX ISA 9.7.9.25.4.1): the global source goes to the
// same offset of each CTA in ctaMask, completing on its mbarrier at the same
// offset; one copy per destination CTA.
void multicast(Warp& w, const Instr& in, int lane, std::uint32_t n) {
  gpu::Span src = span_at(w, in, in.args.at(1), lane, Space::global, n);
  auto [dst_cta, dst_off] = shared_target(w, in, in.args.at(0), lane);
  auto [bar_cta, bar_off] = shared_target(w, in, in.args.at(3), lane);
  (void)dst_cta, (void)bar_cta;
  const auto mask = static_cast<std::uint32_t>(w.value(in.args.at(4), lane, Type{Type::Kind::b, 2}));
  const int size = w.state.launch().cluster_size(), base = w.thread.cta - w.thread.cta % size;
  if (mask == 0 || (mask >> size) != 0)
    throw ModelError(fmt::format("`{}`: ctaMask {:#x} must name ranks of the cluster of {} CTAs", in.opcode,
                                 mask, size),
                     in.loc);
  std::vector<gpu::Mbarrier*> bars;
  std::vector<gpu::Span> dsts;
  for (int r = 0; r < size; ++r) {
    if (!(mask >> r & 1u)) continue;
    bars.push_back(&mbarrier_at(w, in, base + r, bar_off));
    auto [region, first] = w.state.resolve(Space::shared, dst_off, n, base + r, in);
    dsts.push_back(gpu::Span{region, first, n});
  }
  announce(in, bars);
  for (std::size_t i = 0; i < bars.size(); ++i) gpu::bulk_load(dsts[i], src, *bars[i], in.loc);
}

// A copy into shared memory: complete_tx on the destination CTA's mbarrier.
void load(Warp& w, const Instr& in, int lane) {
  const std::uint32_t n = copy_size(w, in, lane);
  if (in.has("multicast::cluster")) return multicast(w, in, lane, n);
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
  if (bar_cta != w.thread.cta) announce(in, {&bar});
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
