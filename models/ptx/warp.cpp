#include "models/ptx/warp.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstring>
#include <stdexcept>

namespace heddle::ptx {

Warp::Warp(LaunchState& st, const gpu::ThreadInfo& t) : state(st), thread(t), warp_(t.warp) {
  regs_.assign(st.program().reg_names.size() * 32, 0);
  int threads = st.launch().threads();
  for (int l = 0; l < 32; ++l)
    if (warp_ * 32 + l < threads) live_ |= 1u << l;
}

namespace {
std::atomic<std::uint64_t> run_total{0};
}  // namespace

std::uint64_t warp_instructions_run() { return run_total.load(std::memory_order_relaxed); }

Warp::~Warp() { run_total.fetch_add(executed_, std::memory_order_relaxed); }

void Warp::run() {
  const Program& p = state.program();
  while (live_ != 0) {
    int pc = 1 << 30;
    std::uint32_t group = 0;  // the live lanes at the smallest pc, found in one pass
    for (int l = 0; l < 32; ++l) {
      if (!(live_ >> l & 1) || pc_[l] > pc) continue;
      if (pc_[l] < pc) pc = pc_[l], group = 0;
      group |= 1u << l;
    }
    const Instr& in = p.code[pc];
    std::uint32_t exec = group;
    if (in.guard >= 0)
      for (int l = 0; l < 32; ++l)
        if ((group >> l & 1) && ((regs_[in.guard * 32 + l] != 0) == in.guard_negated)) exec &= ~(1u << l);
    for (int l = 0; l < 32; ++l)
      if (group >> l & 1) ++pc_[l];
    if (order.spin_pc >= 0) {  // the warp left its spin loop: the next trip is a first one
      const Instr& head = p.code[static_cast<std::size_t>(order.spin_pc)];
      if (pc < head.spin_begin || pc > head.spin_end) order.spin_pc = -1;
    }
    if (exec == 0) continue;
    ++executed_;
    if (wgmma.issued != wgmma.retired) check_accumulators(*this, in);
    try {
      step(in, exec);
    } catch (const std::logic_error& e) {  // out_of_range from an operand the decoder let through
      throw ModelError(fmt::format("[heddle bug] `{}` at PTX line {}: the decoder accepted operands "
                                   "the interpreter cannot use ({})",
                                   in.opcode, in.line, e.what()),
                       in.loc);
    }
  }
}

void Warp::step(const Instr& in, std::uint32_t exec) {
  switch (in.op) {
    case Op::bra:
      for (int l = 0; l < 32; ++l)
        if (exec >> l & 1) pc_[l] = in.target;
      return;
    case Op::exit: live_ &= ~exec; return;
    case Op::ld:
    case Op::st:
      if (in.sem != Sem::weak) return strong_load_store(*this, in, exec);
      load_store(in, exec);
      return;
    case Op::fence_order: memory_fence(*this, in); return;
    case Op::call: call(*this, in, exec); return;
    case Op::ret: ret(*this, in, exec); return;
    case Op::shfl: shuffle(in, exec); return;
    default: break;
  }
  if (in.op >= Op::vote && warp_op(*this, in, exec)) return;
  if (run_visible(*this, in, exec)) return;
  for (int l = 0; l < 32; ++l)
    if (exec >> l & 1) alu(in, l);
}

std::uint64_t Warp::special(const Arg& a, int lane) const {
  const auto& L = state.launch();
  int tid = warp_ * 32 + lane, cta = thread.cta;
  auto split = [](int linear, const std::array<int, 3>& d, int c) {
    return c == 0 ? linear % d[0] : c == 1 ? linear / d[0] % d[1] : linear / (d[0] * d[1]);
  };
  switch (a.special) {
    case Special::tid: return static_cast<std::uint64_t>(split(tid, L.block, a.component));
    case Special::ntid: return static_cast<std::uint64_t>(L.block[a.component]);
    case Special::ctaid: return static_cast<std::uint64_t>(ctaid_of(L, cta + L.first_cta)[a.component]);
    case Special::nctaid: return static_cast<std::uint64_t>(L.grid[a.component]);
    case Special::laneid: return static_cast<std::uint64_t>(lane);
    case Special::warpid: return static_cast<std::uint64_t>(warp_);
    case Special::nwarpid: return static_cast<std::uint64_t>(L.warps());
    case Special::lanemask_lt: return (std::uint64_t{1} << lane) - 1;
    case Special::lanemask_le: return (std::uint64_t{2} << lane) - 1;
    case Special::lanemask_eq: return std::uint64_t{1} << lane;
    case Special::lanemask_ge: return 0xffffffffu & ~((std::uint64_t{1} << lane) - 1);
    case Special::lanemask_gt: return 0xffffffffu & ~((std::uint64_t{2} << lane) - 1);
    // The clocks (PTX ISA 10.14-10.16, 10.28) advance 2^16 per warp instruction
    // run: monotone per warp and deterministic, so a spin until a deadline ends.
    case Special::clock: return truncate(executed_ << 16, 4);
    case Special::clock64:
    case Special::globaltimer: return executed_ << 16;
    // One CTA per SM (10.21-10.22): %smid is the CTA's index, below %nsmid (an H100 SXM's 132 SMs).
    case Special::smid: return static_cast<std::uint64_t>(cta);
    case Special::nsmid: return static_cast<std::uint64_t>(std::max(132, L.ctas()));
    case Special::gridid: return 1;  // one launch (10.12)
    case Special::dynamic_smem_size: return state.program().dynamic_shared_bytes;  // 10.30
    default: return cluster_special(L, cta, a);  // cluster.cpp
  }
  return 0;
}

std::uint64_t Warp::value(const Arg& a, int lane, const Type& t) const {
  switch (a.kind) {
    case Arg::Kind::reg: return regs_[a.reg * 32 + lane];
    case Arg::Kind::imm: return truncate(static_cast<std::uint64_t>(a.imm), t.bytes ? t.bytes : 8);
    case Arg::Kind::special: return special(a, lane);
    case Arg::Kind::symbol: {
      const Symbol& s = state.program().symbols[static_cast<std::size_t>(a.symbol)];
      if (s.frame) return lanes[static_cast<std::size_t>(lane)].base + s.offset;  // in local memory
      return state.symbol_address(a.symbol);
    }
    default: throw ModelError("an operand of this kind has no value here");
  }
}

void Warp::set(const Arg& a, int lane, std::uint64_t v, const Type& t) {
  if (a.kind == Arg::Kind::sink) return;
  if (a.kind != Arg::Kind::reg) throw ModelError("the destination operand must be a register");
  regs_[a.reg * 32 + lane] =
      t.kind == Type::Kind::pred ? (v != 0) : truncate(v, t.bytes ? t.bytes : 8);
}

std::uint64_t Warp::address(const Arg& a, int lane) const {
  Type u64{Type::Kind::u, 8};
  if (a.kind == Arg::Kind::imm) return static_cast<std::uint64_t>(a.imm);
  return value(a, lane, u64) + static_cast<std::uint64_t>(a.imm);
}

std::pair<Region*, std::size_t> Warp::memory(const Instr& in, const Arg& a, int lane, Space space,
                                             std::size_t bytes) const {
  return state.resolve(space, address(a, lane), bytes, thread.cta, in);
}

// ld/st (PTX ISA 9.7.9.8-9): plain accesses, invisible and race-checked;
// consecutive lanes' contiguous bytes are checked as one range.
void Warp::load_store(const Instr& in, std::uint32_t exec) {
  const bool store = in.op == Op::st;
  const Arg& data = store ? in.args.at(1) : in.args.at(0);
  const Arg& addr = store ? in.args.at(0) : in.args.at(1);
  const int size = in.type.bytes, n = in.vec;
  if (touches_local(*this, in, exec)) return local_load_store(*this, in, exec);
  if (in.space == Space::param && addr.kind == Arg::Kind::symbol) {  // a kernel parameter, by name
    const auto& bytes = state.param(static_cast<int>(state.program().symbols[addr.symbol].offset));
    if (store || addr.imm < 0 || static_cast<std::size_t>(addr.imm + size * n) > bytes.size())
      throw ModelError(fmt::format("`{}` accesses bytes {}.. of a parameter of {} bytes", in.opcode,
                                   addr.imm, bytes.size()), in.loc);
    for (int k = 0; k < n; ++k) {
      std::uint64_t v = 0;
      std::memcpy(&v, bytes.data() + addr.imm + k * size, static_cast<std::size_t>(size));
      if (in.type.is_signed()) v = static_cast<std::uint64_t>(sign_extend(v, size));
      for (int l = 0; l < 32; ++l)
        if (exec >> l & 1) set(n == 1 ? data : data.elems.at(static_cast<std::size_t>(k)), l, v, in.type);
    }
    return;
  }
  // ld.param through an address (cvta.param of a parameter's): its bytes in global memory.
  const Space space = in.space == Space::param ? Space::global : in.space;
  const char* what = store ? (in.space == Space::shared ? "st.shared" : "st.global")
                           : (in.space == Space::shared ? "ld.shared" : "ld.global");
  Region* run_region = nullptr;
  std::size_t run_first = 0, run_end = 0;
  auto flush = [&] {
    if (run_region != nullptr) run_region->access(run_first, run_end - run_first, store, Proxy::generic, what, in.loc);
    run_region = nullptr;
  };
  std::array<std::byte*, 32> where{};  // no allocation per instruction: this is the hot path
  for (int l = 0; l < 32; ++l) {
    if (!(exec >> l & 1)) continue;
    auto [r, off] = memory(in, addr, l, space, static_cast<std::size_t>(size * n));
    if (r != run_region || off < run_first || off > run_end) {  // lanes on one range (a broadcast
      flush();                                                  // too) are one access of the warp
      run_region = r;
      run_first = off;
      run_end = off;
    }
    run_end = std::max(run_end, off + static_cast<std::size_t>(size * n));
    where[l] = r->bytes() + off;
  }
  flush();
  for (int l = 0; l < 32; ++l) {
    if (!(exec >> l & 1)) continue;
    for (int k = 0; k < n; ++k) {
      const Arg& d = n == 1 ? data : data.elems.at(k);
      std::byte* at = where[l] + k * size;
      if (store) {
        std::uint64_t v = value(d, l, in.type);
        std::memcpy(at, &v, size);
      } else {
        std::uint64_t v = 0;
        std::memcpy(&v, at, size);
        if (in.type.is_signed()) v = static_cast<std::uint64_t>(sign_extend(v, size));
        set(d, l, v, Type{in.type.kind, 8});  // extended to the register, not cut to the load's size
      }
    }
  }
}

// shfl.sync (PTX ISA 9.7.8.6): the source lane of each mode, with the
// clamp and segment mask packed in operand c.
void Warp::shuffle(const Instr& in, std::uint32_t exec) {
  Type b32{Type::Kind::b, 4};
  std::array<std::uint64_t, 32> src{};
  for (int l = 0; l < 32; ++l) src[l] = value(in.args.at(1), l, b32);
  const Arg& dst = in.args.at(0);
  for (int l = 0; l < 32; ++l) {
    if (!(exec >> l & 1)) continue;
    auto b = static_cast<int>(value(in.args.at(2), l, b32));
    auto c = static_cast<int>(value(in.args.at(3), l, b32));
    int seg = (c >> 8) & 0x1f, clamp = c & 0x1f;
    int max_lane = (l & seg) | (clamp & ~seg), min_lane = l & seg, j = l;
    bool ok = false;
    if (in.flag(kShflUp)) j = l - b, ok = j >= max_lane;
    else if (in.flag(kShflDown)) j = l + b, ok = j <= max_lane;
    else if (in.flag(kShflBfly)) j = l ^ b, ok = j <= max_lane;
    else j = min_lane | (b & ~seg), ok = j <= max_lane;
    if (!ok) j = l;
    const Arg& d = dst.kind == Arg::Kind::pair ? dst.elems.at(0) : dst;
    set(d, l, src[j], b32);
    if (dst.kind == Arg::Kind::pair) set(dst.elems.at(1), l, ok, Type{Type::Kind::pred, 1});
  }
}

void run_warp(LaunchState& state, const gpu::ThreadInfo& thread) {
  Warp w(state, thread);
  w.run();
}

}  // namespace heddle::ptx
