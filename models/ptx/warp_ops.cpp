// The warp-wide instructions that are not visible operations: vote.sync
// (PTX ISA 9.7.13.8), activemask (9.7.13.9), ldmatrix and stmatrix
// (9.7.14.5.15-16, the 8x8 b16 fragment layouts), trap and brkpt (9.7.19.5,
// 9.7.19.2: a model error at its line; with no debugger attached a
// breakpoint ends the kernel), nanosleep (9.7.19.6: no effect on the model),
// setmaxnreg (9.7.19.9: checked, no effect: registers are not modelled),
// prefetch and griddepcontrol (no effect on one grid's model).
#include <fmt/format.h>

#include <cstring>

#include "models/ptx/opcodes.hpp"
#include "models/ptx/warp.hpp"

namespace heddle::ptx {
namespace {


int matrices(const Instr& in) { return in.has("x4") ? 4 : in.has("x2") ? 2 : 1; }

// vote.sync over the executing lanes of membermask: all, any, uni (all
// equal) write a predicate, ballot the mask of lanes whose predicate holds.
void vote(Warp& w, const Instr& in, std::uint32_t exec) {
  std::uint32_t ballot = 0, voters = 0;
  for (int l = 0; l < 32; ++l) {
    if (!(exec >> l & 1)) continue;
    auto mask = static_cast<std::uint32_t>(w.value(in.args[2], l, kU32));
    if (!(mask >> l & 1))
      throw ModelError(fmt::format("`{}`: lane {} executes it but is not in its membermask", in.opcode, l), in.loc);
    voters |= 1u << l;
    if (w.value(in.args[1], l, kPred) != 0) ballot |= 1u << l;
  }
  const bool all = ballot == voters, any = ballot != 0;
  for (int l = 0; l < 32; ++l) {
    if (!(exec >> l & 1)) continue;
    if (in.has("ballot")) w.set(in.args[0], l, ballot, kU32);
    else w.set(in.args[0], l, in.has("all") ? all : in.has("any") ? any : (all || !any), kPred);
  }
}

// The shared-memory row of matrix i, row r (8 b16 = 16 bytes) at the
// address lane 8i + r gives; every lane of the warp must execute (.aligned).
std::byte* matrix_row(Warp& w, const Instr& in, const Arg& addr, int lane, bool store) {
  auto [region, off] = w.memory(in, addr, lane, in.space, 16);
  region->access(off, 16, store, Proxy::generic, store ? "stmatrix" : "ldmatrix", in.loc);
  return region->bytes() + off;
}

// ldmatrix/stmatrix: lane t holds, of matrix i, register i = elements
// (t/4, 2(t%4)) and (t/4, 2(t%4)+1), low half first; .trans swaps row and column.
void matrix(Warp& w, const Instr& in, std::uint32_t exec) {
  const bool store = in.op == Op::stmatrix;
  const Arg& addr = in.args[store ? 0 : 1];
  const Arg& data = in.args[store ? 1 : 0];
  const int n = matrices(in);
  std::uint16_t m[4][8][8];  // [matrix][row][column]
  std::byte* rows[4][8];
  for (int i = 0; i < n; ++i)
    for (int r = 0; r < 8; ++r) {
      if (!(exec >> (8 * i + r) & 1))
        throw ModelError(fmt::format("`{}`: lane {} gives a row address but does not execute it", in.opcode, 8 * i + r), in.loc);
      rows[i][r] = matrix_row(w, in, addr, 8 * i + r, store);
      if (!store) std::memcpy(m[i][r], rows[i][r], 16);
    }
  const bool trans = in.has("trans");
  for (int t = 0; t < 32; ++t)
    for (int i = 0; i < n; ++i) {
      const Arg& reg = data.kind == Arg::Kind::vector ? data.elems.at(static_cast<std::size_t>(i)) : data;
      for (int h = 0; h < 2; ++h) {
        int r = t / 4, c = 2 * (t % 4) + h;
        std::uint16_t& e = trans ? m[i][c][r] : m[i][r][c];
        if (store) e = static_cast<std::uint16_t>(w.value(reg, t, kU32) >> (16 * h));
        else if (h == 1) w.set(reg, t, std::uint32_t{e} << 16 | (trans ? m[i][c - 1][r] : m[i][r][c - 1]), kU32);
      }
    }
  if (store)
    for (int i = 0; i < n; ++i)
      for (int r = 0; r < 8; ++r) std::memcpy(rows[i][r], m[i][r], 16);
}

// The report of a `trap` or `brkpt` reached (PTX ISA, Miscellaneous
// Instructions: trap aborts the kernel; brkpt suspends it for a debugger,
// and heddle, with none, ends the launch there). CUTLASS compiles its debug-only checks, such as
// a pipeline's producer/consumer role checks, to brkpt unless NDEBUG is
// defined: the hint says so, as a failed check is then the likely cause.
std::string abort_message(const Instr& in) {
  std::string what = fmt::format("`{}` at PTX line {}: the kernel aborts here", in.opcode, in.line);
  if (in.opcode != "brkpt") return what + " (the program traps on an invalid path)";
  return what + " (a debug-only check failed: CUTLASS compiles its checks, e.g. pipeline roles, to "
                "brkpt when NDEBUG is not defined; its release builds, -DNDEBUG, leave them out)";
}

}  // namespace

std::string warp_op_problem(const Instr& in) {
  if (in.op == Op::ldmatrix || in.op == Op::stmatrix) {
    if (!in.has("m8n8") || in.type.kind != Type::Kind::b || in.type.bytes != 2)
      return "only the .m8n8 .b16 shape is interpreted";
    const Arg& data = in.args[in.op == Op::stmatrix ? 1 : 0];
    std::size_t want = static_cast<std::size_t>(matrices(in));
    if ((data.kind == Arg::Kind::vector ? data.elems.size() : 1) != want)
      return fmt::format("moves {} matrices: give {} registers", want, want);
    if (in.space != Space::shared && in.space != Space::generic) return "the matrices must be in shared memory";
  }
  if (in.op == Op::setmaxnreg) {
    const Arg& n = in.args[0];
    if (n.kind != Arg::Kind::imm || n.imm < 24 || n.imm > 256 || n.imm % 8 != 0)
      return "the register count must be an immediate multiple of 8 in 24..256";
  }
  if (in.op == Op::cvt && in.type.pack == 2 && in.type2.pack == 1 && in.args.size() < 3)
    return "packs two sources into a pair: write d, a, b";
  if (in.op == Op::vote && !in.has("ballot") && !in.has("all") && !in.has("any") && !in.has("uni"))
    return "the mode must be .all, .any, .uni or .ballot";
  return {};
}

bool warp_op(Warp& w, const Instr& in, std::uint32_t exec) {
  switch (in.op) {
    case Op::vote: vote(w, in, exec); return true;
    case Op::activemask:
      for (int l = 0; l < 32; ++l)
        if (exec >> l & 1) w.set(in.args[0], l, exec, kU32);
      return true;
    case Op::ldmatrix:
    case Op::stmatrix: matrix(w, in, exec); return true;
    case Op::trap: throw ModelError(abort_message(in), in.loc);
    // A prefetch moves no data the model sees (9.7.9.15); griddepcontrol
    // (9.7.19.1) orders this grid with dependent grids, and a heddle launch is one grid.
    case Op::nanosleep:
    case Op::hint: return true;
    case Op::setmaxnreg:
      if (exec != 0xffffffffu)
        throw ModelError(fmt::format("`{}` with inactive lanes: .sync.aligned needs the whole warpgroup", in.opcode), in.loc);
      return true;
    default: return false;
  }
}

}  // namespace heddle::ptx
