// Device-function calls and local memory (PTX ISA 7 "Abstracting the ABI",
// 9.7.8.7 call, 9.7.8.8 ret; 5.1.5 local state space; 9.7.9.? cvta).
//
// Each lane has its own local memory: a stack of frames, one per active
// function, each holding the function's .local variables (nvcc's
// __local_depot, reached through %SP/%SPL) and its .param variables (the
// function's parameters and return values, and the arguments of the calls
// it makes). A call copies the argument values into a fresh frame after the
// caller's and jumps; ret copies the return values back and pops it, so
// recursion gets a frame per activation. Local addresses are offsets in the
// lane's local memory; generic ones add kLocalWindow (cvta.local). Local
// memory is private to its lane: its accesses are not race-checked.
//
// Builtins: vprintf prints its line as a note of the run, prefixed with the
// thread; __assertfail (CUDA's assert) is a failed check at the call's line.
#include <fmt/format.h>

#include <cstdio>
#include <cstring>

#include "models/ptx/warp.hpp"

namespace heddle::ptx {
namespace {

constexpr std::uint64_t kMaxLocal = 1 << 20;  // bytes of local memory per lane
constexpr std::size_t kMaxDepth = 1024;       // call depth (runaway recursion)

// The bytes of `bytes` at address `addr` of the lane's local memory, grown on first use.
std::byte* local_at(Warp& w, int lane, std::uint64_t addr, std::size_t bytes, const Instr& in) {
  if (addr >= kMaxLocal || bytes > kMaxLocal - addr)
    throw ModelError(fmt::format("`{}` accesses local address {:#x}: past the {} bytes of local "
                                 "memory heddle gives a thread (runaway recursion?)",
                                 in.opcode, addr, kMaxLocal),
                     in.loc);
  auto& mem = w.lanes[static_cast<std::size_t>(lane)].local;
  if (mem.size() < addr + bytes) mem.resize(std::max<std::size_t>(addr + bytes, 2 * mem.size()));
  return mem.data() + addr;
}

// The address operand `a` as an address in the lane's local memory, or -1
// when it is not one (a generic address elsewhere).
std::int64_t local_address(const Warp& w, const Instr& in, const Arg& a, int lane) {
  std::uint64_t v = w.address(a, lane);
  if (in.space == Space::local || in.space == Space::param) return static_cast<std::int64_t>(v);
  if (in.space == Space::generic && v >= kLocalWindow && v - kLocalWindow < kMaxLocal)
    return static_cast<std::int64_t>(v - kLocalWindow);
  return -1;
}

// The bytes at generic or local address `addr` (a string's, a vprintf argument
// buffer's): local memory, or a mapped global/shared region.
const std::byte* bytes_at(Warp& w, int lane, std::uint64_t addr, std::size_t n, const Instr& in) {
  if (addr >= kLocalWindow && addr - kLocalWindow < kMaxLocal) return local_at(w, lane, addr - kLocalWindow, n, in);
  auto [r, off] = w.state.resolve(Space::generic, addr, n, w.thread.cta, in);
  return std::as_const(*r).bytes() + off;
}

std::string c_string(Warp& w, int lane, std::uint64_t addr, const Instr& in) {
  std::string s;
  if (addr == 0) return "(null)";
  for (; s.size() < 4096; ++addr) {
    auto c = static_cast<char>(*bytes_at(w, lane, addr, 1, in));
    if (c == '\0') break;
    s += c;
  }
  return s;
}

// The value of call argument `a` (a frame variable or a register) for `lane`.
std::uint64_t argument(Warp& w, const Arg& a, int lane, const Instr& in) {
  if (a.kind != Arg::Kind::symbol) return w.value(a, lane, kU64);
  std::uint64_t v = 0;
  const Symbol& s = w.state.program().symbols[static_cast<std::size_t>(a.symbol)];
  std::memcpy(&v, local_at(w, lane, w.value(a, lane, kU64), std::min<std::size_t>(s.bytes, 8), in),
              std::min<std::size_t>(s.bytes, 8));
  return v;
}

// vprintf(format, args): CUDA packs the arguments in a local buffer, each
// at its size's alignment, floats promoted to double.
std::string vprintf_line(Warp& w, int lane, const Instr& in) {
  const Arg& list = in.args.at(1);
  std::string fmt = c_string(w, lane, argument(w, list.elems.at(0), lane, in), in);
  std::uint64_t args = argument(w, list.elems.at(1), lane, in), at = 0;
  std::string out;
  auto next = [&](std::size_t size) {
    at = (at + size - 1) / size * size;
    std::uint64_t v = 0;
    std::memcpy(&v, bytes_at(w, lane, args + at, size, in), size);
    at += size;
    return v;
  };
  for (std::size_t i = 0; i < fmt.size(); ++i) {
    if (fmt[i] != '%') { out += fmt[i]; continue; }
    std::size_t j = fmt.find_first_of("diouxXcsfFeEgGaAp%", i + 1);
    if (j == std::string::npos) { out += fmt.substr(i); break; }
    std::string spec = fmt.substr(i, j - i + 1);
    char conv = fmt[j];
    bool wide = spec.find('l') != std::string::npos || conv == 'p';
    char buf[512];
    if (conv == '%') out += '%';
    else if (conv == 'c') out += static_cast<char>(next(4));
    else if (conv == 's') out += c_string(w, lane, next(8), in);
    else if (std::strchr("fFeEgGaA", conv)) {
      std::uint64_t bits = next(8);
      double d;
      std::memcpy(&d, &bits, 8);
      std::snprintf(buf, sizeof buf, spec.c_str(), d);
      out += buf;
    } else {
      std::uint64_t v = next(wide ? 8 : 4);
      std::string s = spec;
      if (!wide) s.insert(s.size() - 1, "ll"), v = conv == 'd' || conv == 'i' ? static_cast<std::uint64_t>(sign_extend(v, 4)) : v;
      if (conv == 'p') s = "%#llx";
      std::snprintf(buf, sizeof buf, s.c_str(), static_cast<unsigned long long>(v));
      out += buf;
    }
    i = j;
  }
  while (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

void builtin(Warp& w, const Instr& in, const Func& f, int lane) {
  if (f.builtin == Func::Builtin::vprintf) {
    Execution::current().note(fmt::format("printf [cta {} warp {} lane {}] {}", w.thread.cta,
                                           w.thread.warp, lane, vprintf_line(w, lane, in)));
    for (const Arg& r : in.args.at(0).elems)  // the result: 0 here
      if (r.kind == Arg::Kind::symbol) std::memset(local_at(w, lane, w.value(r, lane, kU64), 4, in), 0, 4);
    return;
  }
  const Arg& a = in.args.at(1);  // __assertfail(message, file, line, function, charSize)
  std::string msg = c_string(w, lane, argument(w, a.elems.at(0), lane, in), in);
  std::string file = c_string(w, lane, argument(w, a.elems.at(1), lane, in), in);
  auto line = static_cast<std::uint32_t>(argument(w, a.elems.at(2), lane, in));
  std::string fn = c_string(w, lane, argument(w, a.elems.at(3), lane, in), in);
  throw AssertionFailure(fmt::format("assertion `{}` failed ({}:{}, in {}; cta {} warp {} lane {})",
                                     msg, file, line, fn, w.thread.cta, w.thread.warp, lane),
                         in.loc);
}

// Copies the values of `from` (caller operands) into the frame variables `to`.
void copy_values(Warp& w, int lane, const std::vector<Arg>& from, const std::vector<int>& to,
                 std::uint32_t base, const Instr& in) {
  const auto& syms = w.state.program().symbols;
  for (std::size_t k = 0; k < to.size(); ++k) {
    const Symbol& dst = syms[static_cast<std::size_t>(to[k])];
    const Arg& src = from[k];
    std::byte* d = local_at(w, lane, base + dst.offset, dst.bytes, in);
    if (src.kind == Arg::Kind::symbol) {
      const Symbol& s = syms[static_cast<std::size_t>(src.symbol)];
      std::memcpy(d, local_at(w, lane, w.value(src, lane, kU64), s.bytes, in), std::min(s.bytes, dst.bytes));
    } else {
      std::uint64_t v = w.value(src, lane, kU64);
      std::memcpy(d, &v, std::min<std::size_t>(dst.bytes, 8));
    }
  }
}

}  // namespace

void call(Warp& w, const Instr& in, std::uint32_t exec) {
  const Program& p = w.state.program();
  const Func& f = p.funcs.at(static_cast<std::size_t>(in.callee));
  for (int l = 0; l < 32; ++l) {
    if (!(exec >> l & 1)) continue;
    if (f.builtin != Func::Builtin::none) {
      builtin(w, in, f, l);
      continue;
    }
    Warp::Lane& lane = w.lanes[static_cast<std::size_t>(l)];
    if (lane.calls.size() >= kMaxDepth)
      throw ModelError(fmt::format("`{}`: call depth {} (runaway recursion?)", in.opcode, kMaxDepth), in.loc);
    std::uint32_t base = lane.base + p.funcs[static_cast<std::size_t>(lane.func)].frame;
    copy_values(w, l, in.args.at(1).elems, f.params, base, in);
    std::vector<std::uint64_t> saved;  // an activation of the callee lower in the stack keeps its registers
    for (int r = f.reg_begin; r < f.reg_end; ++r) saved.push_back(w.reg(r, l));
    lane.calls.push_back(Warp::Lane::Frame{w.pc(l), lane.base, lane.func, &in, std::move(saved)});
    lane.base = base;
    lane.func = in.callee;
    w.pc(l) = f.entry;
  }
}

void ret(Warp& w, const Instr& in, std::uint32_t exec) {
  const Program& p = w.state.program();
  for (int l = 0; l < 32; ++l) {
    if (!(exec >> l & 1)) continue;
    Warp::Lane& lane = w.lanes[static_cast<std::size_t>(l)];
    if (lane.calls.empty())
      throw ModelError(fmt::format("`{}` returns from the kernel's own code", in.opcode), in.loc);
    Warp::Lane::Frame f = std::move(lane.calls.back());
    lane.calls.pop_back();
    const Func& callee = p.funcs[static_cast<std::size_t>(lane.func)];
    // The caller's result operands get the callee's return values (in the callee's frame).
    const std::vector<Arg>& results = f.call->args.at(0).elems;
    const auto& syms = p.symbols;
    for (std::size_t k = 0; k < results.size(); ++k) {
      const Symbol& src = syms[static_cast<std::size_t>(callee.rets[k])];
      std::uint64_t v = 0;
      std::memcpy(&v, local_at(w, l, lane.base + src.offset, src.bytes, in), std::min<std::size_t>(src.bytes, 8));
      if (results[k].kind == Arg::Kind::symbol) {
        const Symbol& dst = syms[static_cast<std::size_t>(results[k].symbol)];
        std::memcpy(local_at(w, l, f.base + dst.offset, dst.bytes, in),
                    local_at(w, l, lane.base + src.offset, src.bytes, in), std::min(src.bytes, dst.bytes));
      } else {
        w.set(results[k], l, v, kU64);
      }
    }
    for (int r = callee.reg_begin; r < callee.reg_end; ++r)
      w.reg(r, l) = f.saved[static_cast<std::size_t>(r - callee.reg_begin)];
    lane.base = f.base;
    lane.func = f.func;
    w.pc(l) = f.ret_pc;
  }
}

bool touches_local(const Warp& w, const Instr& in, std::uint32_t exec) {
  if (in.space == Space::local) return true;
  const Arg& addr = in.args.at(in.op == Op::st ? 0 : 1);
  if (in.space == Space::param)
    return addr.kind == Arg::Kind::symbol && w.state.program().symbols[static_cast<std::size_t>(addr.symbol)].frame;
  if (in.space != Space::generic) return false;
  for (int l = 0; l < 32; ++l)
    if ((exec >> l & 1) && local_address(w, in, addr, l) >= 0) return true;
  return false;
}

void local_load_store(Warp& w, const Instr& in, std::uint32_t exec) {
  const bool store = in.op == Op::st;
  const Arg& data = in.args.at(store ? 1 : 0);
  const Arg& addr = in.args.at(store ? 0 : 1);
  const int size = in.type.bytes, n = in.vec;
  for (int l = 0; l < 32; ++l) {
    if (!(exec >> l & 1)) continue;
    std::int64_t at = local_address(w, in, addr, l);
    if (at < 0)
      throw ModelError(fmt::format("`{}`: lanes of the warp access local and other memory at once "
                                   "(lane {} at {:#x})", in.opcode, l, w.address(addr, l)), in.loc);
    std::byte* cell = local_at(w, l, static_cast<std::uint64_t>(at), static_cast<std::size_t>(size * n), in);
    for (int k = 0; k < n; ++k, cell += size) {
      const Arg& d = n == 1 ? data : data.elems.at(static_cast<std::size_t>(k));
      std::uint64_t v = 0;
      if (store) {
        v = w.value(d, l, in.type);
        std::memcpy(cell, &v, static_cast<std::size_t>(size));
        continue;
      }
      std::memcpy(&v, cell, static_cast<std::size_t>(size));
      if (in.type.is_signed()) v = static_cast<std::uint64_t>(sign_extend(v, size));
      w.set(d, l, v, Type{in.type.kind, 8});
    }
  }
}

}  // namespace heddle::ptx
