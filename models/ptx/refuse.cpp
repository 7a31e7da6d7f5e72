// Forms the decoder accepts as opcodes but the interpreter cannot run,
// refused when the kernel is loaded (issue 52: nothing unsupported may
// fail first at run time as a model error).
#include <fmt/format.h>

#include "models/ptx/opcodes.hpp"

namespace heddle::ptx {
namespace {

bool one_of(const std::string& s, std::initializer_list<const char*> list) {
  for (const char* x : list)
    if (s == x) return true;
  return false;
}

// An operand that must hold a value (not a label, vector or pair).
bool scalar_source(const Arg& a) {
  return a.kind == Arg::Kind::reg || a.kind == Arg::Kind::imm || a.kind == Arg::Kind::special ||
         a.kind == Arg::Kind::symbol;
}

// A destination: a register, the sink `_`, or a vector/pair of them.
bool destination(const Arg& a) {
  if (a.kind == Arg::Kind::reg || a.kind == Arg::Kind::sink) return !a.address;
  if (a.kind != Arg::Kind::vector && a.kind != Arg::Kind::pair) return false;
  for (const Arg& e : a.elems)
    if (e.kind != Arg::Kind::reg && e.kind != Arg::Kind::sink) return false;
  return true;
}

std::string alu_problem(const Instr& in) {
  const bool fl = in.type.is_float();
  if (in.op == Op::setp) {
    static const std::initializer_list<const char*> ints = {"eq", "ne", "lt", "le", "gt", "ge",
                                                            "lo", "ls", "hi", "hs"};
    static const std::initializer_list<const char*> floats = {"eq", "ne", "lt", "le", "gt", "ge",
                                                              "equ", "neu", "ltu", "leu", "gtu", "geu"};
    if (!one_of(in.cmp, fl ? floats : ints)) return fmt::format("the comparison .{} is not interpreted", in.cmp);
  }
  switch (in.op) {  // the integer-only operations of the ALU (alu.cpp)
    case Op::rem: case Op::and_: case Op::or_: case Op::xor_: case Op::not_: case Op::shl:
    case Op::shr: case Op::cvta:
      if (fl) return "this floating-point operation is not interpreted";
      break;
    default: break;
  }
  if (in.wide && in.type.bytes > 4) return ".wide doubles a 16- or 32-bit type (PTX ISA 9.7.1.3)";
  return "";
}

std::string memory_problem(const Instr& in) {
  if (in.op == Op::st && in.space == Space::constant) return ".const memory is read-only (PTX ISA 5.1.3)";
  if (in.op == Op::st && in.space == Space::param && in.args.at(0).kind != Arg::Kind::symbol)
    return "st.param names a parameter";
  if (in.op == Op::atom || in.op == Op::red) {
    static const std::initializer_list<const char*> ops = {"add", "exch", "cas", "and", "or", "xor",
                                                           "inc", "dec", "min", "max"};
    bool known = false;
    for (const std::string& m : in.mods) known = known || one_of(m, ops);
    if (!known) return "this atomic operation is not interpreted";
    if (in.type.is_float() && !in.has("add") && !in.has("exch") && !in.has("cas"))
      return "a floating-point atomic other than add, exch or cas is not interpreted";
  }
  return "";
}

std::string async_problem(const Instr& in) {
  // The token and parity forms of mbarrier waits and 1d-5d tensors are all
  // interpreted (hopper.cpp, tma.cpp); what is left is checked here.
  if (in.op == Op::bar_arrive && in.args.size() < 2) return "bar.arrive needs a thread count";
  return "";
}

}  // namespace

std::string unsupported_form(const Instr& in) {
  for (auto* check : {alu_problem, memory_problem, async_problem})
    if (std::string why = check(in); !why.empty()) return why;
  switch (in.op) {  // operands the interpreter reads as values or writes as registers
    case Op::bra: case Op::exit: case Op::ret: case Op::call: case Op::st: case Op::red: case Op::bar_sync: case Op::bar_arrive:
    case Op::bar_warp_sync: case Op::fence_noop: case Op::fence_order: case Op::fence_proxy_async:
    case Op::fence_tensormap_acquire: case Op::fence_tensormap_release: case Op::mbar_init:
    case Op::mbar_expect_tx: case Op::tma_load: case Op::tma_store: case Op::bulk_commit:
    case Op::bulk_wait: case Op::tensormap_replace: case Op::tensormap_cp_fenceproxy:
    case Op::cp_async: case Op::cp_async_commit: case Op::cp_async_wait: case Op::wgmma_fence:
    case Op::wgmma_mma: case Op::wgmma_commit: case Op::wgmma_wait: case Op::trap: case Op::nanosleep:
    case Op::setmaxnreg: case Op::hint: case Op::stmatrix:  // warp_op_problem checks them
    case Op::bar_cluster_arrive: case Op::bar_cluster_wait: case Op::fence_mbarrier_init:
    case Op::bulk_copy: case Op::bulk_reduce: case Op::prefetch: return "";  // cluster.cpp, bulk_copy.cpp
    default: break;
  }
  if (in.args.empty() || !destination(in.args[0])) return "the first operand must be a register (the destination)";
  if (in.op == Op::mov || in.op == Op::ld || in.op == Op::elect || in.op == Op::shfl ||
      in.op == Op::mbar_arrive || in.op == Op::mbar_try_wait || in.op == Op::mbar_test_wait ||
      in.op == Op::atom || in.op == Op::ldmatrix)
    return "";
  for (std::size_t i = 1; i < in.args.size(); ++i)
    if (!scalar_source(in.args[i]) || in.args[i].address)
      return fmt::format("operand {} must be a register, a number or a name", i + 1);
  return "";
}

}  // namespace heddle::ptx
