// Clusters of CTAs in the PTX front end: the cluster special registers
// (PTX ISA 10: %cluster_ctarank, %cluster_nctarank, %clusterid,
// %nclusterid, %cluster_ctaid, %cluster_nctaid, %is_explicit_cluster),
// mapa (PTX ISA 9.7.9.22: an address in the shared::cluster window of the
// same variable in another CTA), getctarank (9.7.9.23), barrier.cluster (9.7.13.3) on models/gpu's
// ClusterBarrier, and fence.mbarrier_init (9.7.13.4).
#include <fmt/format.h>

#include "models/gpu/cluster.hpp"
#include "models/ptx/warp.hpp"

namespace heddle::ptx {
namespace {

// The shared::cluster address of `addr`'s variable in CTA `rank` (PTX ISA
// 9.7.9.22): `addr` is an own (shared::cta) or a peer's address.
std::uint64_t map_to_rank(const Warp& w, const Instr& in, std::uint64_t addr, std::uint64_t rank) {
  const int size = w.state.launch().cluster_size();
  if (rank >= static_cast<std::uint64_t>(size))
    throw ModelError(fmt::format("`{}`: CTA rank {} is outside the cluster of {} CTAs", in.opcode,
                                 rank, size),
                     in.loc);
  const std::uint64_t offset = addr % kRankStride;
  if (addr >= kRankStride * (static_cast<std::uint64_t>(size) + 1) || offset == 0 ||
      offset >= w.state.program().shared_bytes)
    throw ModelError(fmt::format("`{}`: {:#x} is not a shared-memory address", in.opcode, addr), in.loc);
  return offset + (rank + 1) * kRankStride;
}

void mapa(Warp& w, const Instr& in, std::uint32_t exec) {
  const Type u64{Type::Kind::u, 8};
  for (int l = 0; l < 32; ++l) {
    if (!(exec >> l & 1)) continue;
    std::uint64_t a = w.value(in.args.at(1), l, u64) + static_cast<std::uint64_t>(in.args[1].imm);
    if (in.args[1].kind == Arg::Kind::imm) a = static_cast<std::uint64_t>(in.args[1].imm);
    const std::uint64_t rank = w.value(in.args.at(2), l, Type{Type::Kind::u, 4});
    if (in.cluster) {
      w.set(in.args.at(0), l, map_to_rank(w, in, a, rank), in.type);
      continue;
    }
    // generic form: a generic address of shared memory in, a generic one out
    if (a < kSharedWindow)
      throw ModelError(fmt::format("`{}`: {:#x} is not a generic address of shared memory", in.opcode, a),
                       in.loc);
    w.set(in.args.at(0), l, kSharedWindow + map_to_rank(w, in, a - kSharedWindow, rank), in.type);
  }
}

// getctarank (PTX ISA 9.7.9.23): the rank of the CTA whose shared memory
// address `a` (shared::cluster, or generic) is in.
void getctarank(Warp& w, const Instr& in, std::uint32_t exec) {
  const Type u64{Type::Kind::u, 8};
  for (int l = 0; l < 32; ++l) {
    if (!(exec >> l & 1)) continue;
    std::uint64_t a = w.value(in.args.at(1), l, u64) + static_cast<std::uint64_t>(in.args[1].imm);
    if (!in.cluster) {
      if (a < kSharedWindow)
        throw ModelError(fmt::format("`{}`: {:#x} is not a generic address of shared memory", in.opcode, a),
                         in.loc);
      a -= kSharedWindow;
    }
    const int size = w.state.launch().cluster_size();
    const std::uint64_t rank = a < kRankStride ? static_cast<std::uint64_t>(w.thread.cta % size) : a / kRankStride - 1;
    if (rank >= static_cast<std::uint64_t>(size))
      throw ModelError(fmt::format("`{}`: {:#x} is not a shared address of the cluster", in.opcode, a), in.loc);
    w.set(in.args.at(0), l, rank, Type{Type::Kind::u, 4});
  }
}

// barrier.cluster counts threads; heddle counts warps (one heddle thread
// each), so the whole warp must arrive and wait together, as .aligned says.
void require_whole_warp(const Warp& w, const Instr& in, std::uint32_t exec) {
  if (exec != w.live())
    throw ModelError(fmt::format("`{}` by lanes {:#010x} of a warp whose live lanes are {:#010x}: "
                                 "the model has whole warps arrive at barrier.cluster",
                                 in.opcode, exec, w.live()),
                     in.loc);
}

}  // namespace

std::uint64_t cluster_special(const Launch& L, int cta, const Arg& a) {
  const int size = L.cluster_size(), c = a.component;
  const std::array<int, 3> id = ctaid_of(L, cta);
  switch (a.special) {
    case Special::cluster_ctarank: return static_cast<std::uint64_t>(cta % size);
    case Special::cluster_nctarank: return static_cast<std::uint64_t>(size);
    case Special::clusterid: return static_cast<std::uint64_t>(id[c] / L.cluster[c]);
    case Special::nclusterid: return static_cast<std::uint64_t>(L.grid[c] / L.cluster[c]);
    case Special::cluster_ctaid: return static_cast<std::uint64_t>(id[c] % L.cluster[c]);
    case Special::cluster_nctaid: return static_cast<std::uint64_t>(L.cluster[c]);
    case Special::is_explicit_cluster: return L.explicit_cluster ? 1 : 0;
    default: throw std::logic_error("[heddle bug] not a cluster special register");
  }
}

void run_cluster(Warp& w, const Instr& in, std::uint32_t exec) {
  switch (in.op) {
    case Op::mapa: return mapa(w, in, exec);
    case Op::getctarank: return getctarank(w, in, exec);
    case Op::bar_cluster_arrive: {
      require_whole_warp(w, in, exec);
      // PTX ISA 9.7.13.3: .release by default, .relaxed orders nothing; a
      // fence.mbarrier_init.release.cluster before a relaxed arrive makes
      // the pair a release pattern for the warp's mbarrier.inits (9.7.13.4).
      // The model releases all of the warp's prior accesses then (coarser).
      const bool release = !in.has("relaxed") || w.mbarrier_init_fenced;
      w.mbarrier_init_fenced = false;
      return gpu::barrier_cluster_arrive(release ? gpu::ClusterArrive::release : gpu::ClusterArrive::relaxed,
                                         in.loc);
    }
    case Op::bar_cluster_wait:
      require_whole_warp(w, in, exec);
      return gpu::barrier_cluster_wait(in.loc);  // .acquire, its only semantics
    case Op::fence_mbarrier_init: w.mbarrier_init_fenced = true; return;
    default: throw std::logic_error("[heddle bug] not a cluster instruction");
  }
}

}  // namespace heddle::ptx
