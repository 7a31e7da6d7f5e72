// The visible operations of a PTX warp, mapped onto models/gpu: named
// barriers, mbarriers, TMA loads and stores, bulk async-groups, proxy
// fences, tensormap updates, elect.sync and atomics (PTX ISA 9.7.12-13,
// 9.7.9.25-27). What acts once per lane and what once per warp is said at
// each case; models/ptx/README.md sums it up.
#include <fmt/format.h>

#include <cstring>
#include <set>
#include <tuple>

#include "models/ptx/warp.hpp"

namespace heddle::ptx {
namespace {

constexpr std::uint32_t kMaxArrivals = (1u << 20) - 1;  // an mbarrier's arrival counts

template <class F>
void each_lane(std::uint32_t exec, F&& f) {
  for (int l = 0; l < 32; ++l)
    if (exec >> l & 1) f(l);
}

int first_lane(std::uint32_t exec) { return std::countr_zero(exec); }

// The mbarrier object's 8 bytes of shared memory: mbarrier.init writes them
// (a generic-proxy store, PTX ISA 9.7.13.15, mbarrier.init), every later operation on the
// barrier reads them, so a use that nothing orders after the init races
// with it (bar.sync or another barrier must come between, as CUDA does).
void touch_object(Warp& w, const Instr& in, int cta, std::uint32_t addr, bool init) {
  auto [region, off] = w.state.resolve(Space::shared, addr, 8, cta, in);
  region->access(off, 8, init, Proxy::generic, init ? "mbarrier.init" : "mbarrier.use", in.loc);
}

}  // namespace

std::pair<int, std::uint32_t> shared_target(const Warp& w, const Instr& in, const Arg& a, int lane) {
  std::uint64_t v = w.address(a, lane);
  const std::uint64_t own = w.state.program().shared_bytes;
  if (in.space == Space::shared && !in.cluster && v >= own)
    throw ModelError(fmt::format("`{}`: shared address {:#x} is past the CTA's {} bytes of shared "
                                 "memory (a peer CTA's needs .shared::cluster)",
                                 in.opcode, v, own),
                     in.loc);
  if (in.space != Space::shared) {
    if (v < kSharedWindow || v - kSharedWindow >= kRankStride * (w.state.launch().cluster_size() + 1))
      throw ModelError(fmt::format("`{}`: address {:#x} is not in shared memory", in.opcode, v), in.loc);
    v -= kSharedWindow;
  }
  return w.state.shared_target(v, w.thread.cta, in);
}

gpu::Mbarrier& mbarrier_at(Warp& w, const Instr& in, int cta, std::uint32_t addr) {
  gpu::Mbarrier* b = w.state.mbarrier(cta, addr);
  if (b == nullptr)
    throw ModelError(fmt::format("`{}` uses the mbarrier at {} before mbarrier.init (or before "
                                 "the barrier that orders the init)",
                                 in.opcode, w.state.shared_name(cta, addr)),
                     in.loc);
  touch_object(w, in, cta, addr, false);
  return *b;
}

// An mbarrier's CTA and shared address: the object is 8 bytes, 8-byte
// aligned (PTX ISA 9.7.13.15.1).
std::pair<int, std::uint32_t> mbarrier_address(const Warp& w, const Instr& in, const Arg& a,
                                               int lane) {
  auto [cta, addr] = shared_target(w, in, a, lane);
  if (addr % 8 != 0)
    throw ModelError(fmt::format("`{}`: the mbarrier at shared address {:#x} is not 8-byte aligned",
                                 in.opcode, addr), in.loc);
  return {cta, addr};
}

gpu::Mbarrier& mbarrier(Warp& w, const Instr& in, const Arg& a, int lane) {
  auto [cta, addr] = mbarrier_address(w, in, a, lane);
  return mbarrier_at(w, in, cta, addr);
}

gpu::TensorMap tensormap(Warp& w, const Instr& in, const Arg& a, int lane, Space space) {
  auto [r, off] = w.memory(in, a, lane, space, 128);
  return gpu::TensorMap(Buffer<std::uint8_t>(*r), off, 128);
}

namespace {

// The parity a wait tests: the .parity operand, or for the token form the
// phase that mbarrier.arrive returned (PTX ISA 9.7.13.15.16: try_wait with
// `state` tests whether that phase has completed; a token is valid for the
// current or the immediately preceding phase, so its parity decides).
std::uint32_t wait_parity(Warp& w, const Instr& in, int lane) {
  return static_cast<std::uint32_t>(w.value(in.args.at(2), lane, kU64)) & 1u;
}

void mbarrier_arrive(Warp& w, const Instr& in, int l) {
  auto [cta, addr] = mbarrier_address(w, in, in.args.at(1), l);
  gpu::Mbarrier& b = mbarrier_at(w, in, cta, addr);
  const std::uint64_t state = b.phase();  // PTX ISA 9.7.13.15.13: the phase before the arrive
  if (in.has("expect_tx")) {
    b.arrive_expect_tx(static_cast<std::uint32_t>(w.value(in.args.at(2), l, kU32)), in.loc);
  } else {
    auto n = in.args.size() > 2 ? w.value(in.args[2], l, kU32) : 1;
    // 9.7.13.15.13: the count must be 1 to 2^20 - 1, and the arrivals may not
    // exceed what the phase still needs (the pending count would underflow).
    if (n < 1 || n > kMaxArrivals || static_cast<std::int64_t>(n) > b.pending())
      throw ModelError(fmt::format("`{}` arrives {} times on {}, whose phase needs {} more arrivals",
                                   in.opcode, n, b.name(), b.pending()), in.loc);
    for (std::uint64_t k = 0; k < n; ++k) b.arrive(in.loc);
  }
  if (cta != w.thread.cta && in.args.at(0).kind != Arg::Kind::sink)  // PTX ISA 9.7.13.15.13
    throw ModelError(fmt::format("`{}` on a peer CTA's mbarrier returns no state: write `_` as "
                                 "its destination",
                                 in.opcode),
                     in.loc);
  w.set(in.args.at(0), l, state, kU64);
}

void mbarrier_op(Warp& w, const Instr& in, std::uint32_t exec) {
  if (in.op == Op::mbar_try_wait) {  // once per distinct (barrier, parity): lanes test in lockstep
    std::set<std::tuple<int, std::uint32_t, std::uint32_t>> waits;  // (CTA, address, parity)
    each_lane(exec, [&](int l) {
      auto [cta, addr] = mbarrier_address(w, in, in.args.at(1), l);
      waits.insert({cta, addr, wait_parity(w, in, l)});
    });
    for (auto [cta, addr, p] : waits)  // try_wait spins: it returns once it succeeds
      mbarrier_at(w, in, cta, addr).wait_parity(p, in.loc);
    each_lane(exec, [&](int l) { w.set(in.args.at(0), l, 1, kPred); });
    return;
  }
  each_lane(exec, [&](int l) {  // one operation per lane
    if (in.op == Op::mbar_init) {
      auto [cta, addr] = mbarrier_address(w, in, in.args.at(0), l);
      gpu::Mbarrier*& b = w.state.mbarrier(cta, addr);
      if (b != nullptr)
        throw ModelError(fmt::format("mbarrier.init of {}, which is initialised already",
                                     w.state.shared_name(cta, addr)), in.loc);
      auto count = static_cast<std::uint32_t>(w.value(in.args.at(1), l, kU32));
      if (count < 1 || count > kMaxArrivals)  // PTX ISA 9.7.13.15.9: count in [1, 2^20 - 1]
        throw ModelError(fmt::format("mbarrier.init of {} with count {}: the count must be 1 to {}",
                                     w.state.shared_name(cta, addr),
                                     static_cast<std::int32_t>(count), kMaxArrivals), in.loc);
      b = &make<gpu::Mbarrier>(w.state.shared_name(cta, addr), count);
      touch_object(w, in, cta, addr, true);
      return;
    }
    if (in.op == Op::mbar_expect_tx) {
      mbarrier(w, in, in.args.at(0), l).expect_tx(static_cast<std::uint32_t>(w.value(in.args.at(1), l, kU32)), in.loc);
      return;
    }
    if (in.op == Op::mbar_arrive) return mbarrier_arrive(w, in, l);
    gpu::Mbarrier& b = mbarrier(w, in, in.args.at(1), l);
    w.set(in.args.at(0), l, b.try_wait_parity(wait_parity(w, in, l), in.loc), kPred);
  });
}

void barrier(Warp& w, const Instr& in, std::uint32_t exec) {  // once per warp: bar counts warps
  int l = first_lane(exec);
  auto id = static_cast<int>(w.value(in.args.at(0), l, kU32));
  std::uint32_t warps = static_cast<std::uint32_t>(w.state.launch().warps());
  if (in.args.size() > 1) {
    auto threads = static_cast<std::uint32_t>(w.value(in.args[1], l, kU32));
    if (threads % 32 != 0)
      throw ModelError(fmt::format("`{}` with {} threads: the count must be a multiple of the warp size", in.opcode, threads), in.loc);
    warps = threads / 32;
  } else if (in.op == Op::bar_arrive) {
    throw ModelError("bar.arrive needs a thread count", in.loc);
  }
  if (in.op == Op::bar_sync) gpu::bar_sync(id, warps, in.loc);
  else gpu::bar_arrive(id, warps, in.loc);
}

void elect(Warp& w, const Instr& in, std::uint32_t exec) {
  std::uint32_t mask = static_cast<std::uint32_t>(w.value(in.args.at(1), first_lane(exec), kU32));
  if ((exec & mask) == 0) return;
  int leader = first_lane(exec & mask);
  const Arg& d = in.args.at(0);
  each_lane(exec & mask, [&](int l) {
    if (d.kind != Arg::Kind::pair) return w.set(d, l, l == leader, kPred);
    w.set(d.elems.at(0), l, static_cast<std::uint64_t>(leader), kU32);
    w.set(d.elems.at(1), l, l == leader, kPred);
  });
}

}  // namespace

void atomic(Warp& w, const Instr& in, std::uint32_t exec);    // atomics.cpp
void cp_async(Warp& w, const Instr& in, std::uint32_t exec);  // cp_async.cpp

bool run_visible(Warp& w, const Instr& in, std::uint32_t exec) {
  int l = first_lane(exec);
  switch (in.op) {
    case Op::bar_sync:
    case Op::bar_arrive: barrier(w, in, exec); return true;
    case Op::bar_warp_sync:  // the warp's lanes are one heddle thread: nothing to wait for
    case Op::fence_noop: return true;
    case Op::fence_proxy_async: gpu::fence_proxy_async(in.loc); return true;
    case Op::fence_tensormap_acquire:
      // PTX ISA 9.7.13.4: [addr, addr+size) names the range the fence orders;
      // the fence reads nothing there. A range in no allocation (CUTLASS
      // 3.8's epilogue warps that issue no store pass a null tensormap)
      // holds no tensormap: the fence orders nothing, and is no fault.
      try {
        (void)tensormap(w, in, in.args.at(0), l, Space::generic);
      } catch (const ModelError&) {
        return true;
      }
      gpu::fence_proxy_tensormap_acquire(gpu::TensorMap{}, in.loc);
      return true;
    case Op::fence_tensormap_release:
      gpu::fence_proxy_tensormap_release(gpu::TensorMap{}, in.loc);  // PTX ISA 9.7.13.4: no operand
      return true;
    case Op::mbar_init:
    case Op::mbar_arrive:
    case Op::mbar_expect_tx:
    case Op::mbar_try_wait:
    case Op::mbar_test_wait: mbarrier_op(w, in, exec); return true;
    case Op::tma_load:
    case Op::tma_store:
    case Op::prefetch: run_tma(w, in, exec); return true;
    case Op::bulk_copy:
    case Op::bulk_reduce: run_bulk_copy(w, in, exec); return true;
    case Op::mapa:
    case Op::getctarank:
    case Op::bar_cluster_arrive:
    case Op::bar_cluster_wait:
    case Op::fence_mbarrier_init: run_cluster(w, in, exec); return true;
    case Op::bulk_commit: gpu::bulk_commit_group(); return true;  // groups are per warp (README)
    case Op::bulk_wait: {
      auto n = static_cast<std::uint32_t>(w.value(in.args.at(0), l, kU32));
      if (in.has("read")) gpu::bulk_wait_group_read(n, in.loc);
      else gpu::bulk_wait_group(n, in.loc);
      return true;
    }
    case Op::tensormap_replace: replace_field(w, in, exec); return true;
    case Op::tensormap_cp_fenceproxy:  // .sync.aligned: one copy by the warp
      gpu::tensormap_cp_fenceproxy(tensormap(w, in, in.args.at(0), l, Space::generic),
                                   tensormap(w, in, in.args.at(1), l, Space::shared), in.loc);
      return true;
    case Op::elect: elect(w, in, exec); return true;
    case Op::atom:
    case Op::red: atomic(w, in, exec); return true;
    case Op::cp_async:
    case Op::cp_async_commit:
    case Op::cp_async_wait: cp_async(w, in, exec); return true;
    case Op::wgmma_fence:
    case Op::wgmma_mma:
    case Op::wgmma_commit:
    case Op::wgmma_wait: run_wgmma(w, in, exec); return true;
    default: return false;
  }
}

}  // namespace heddle::ptx
