// Spin loops on a strong load (memory_model.cpp): which loops may wait for
// their location to change instead of running trip after trip.
//
// A loop qualifies when it is a backward conditional branch over a body of
// register arithmetic around exactly one scalar strong load, and every
// register the body reads is either never written in the body or written
// earlier in the same trip. Then a trip's effects are a function of the
// value the load reads: a trip that reads what the last one read repeats
// it exactly (no memory written, no register carried over), so skipping it
// loses no behaviour, and the loop ends exactly when some trip reads a new
// value. The same reduction as GenMC's spin-assume transformation
// (Kokologiannakis et al., "Effective Lock Handling in Stateless Model
// Checking", OOPSLA 2019, section 4) applied to PTX.
#include <set>

#include "models/ptx/opcodes.hpp"

namespace heddle::ptx {
namespace {

bool pure_alu(Op op) {
  switch (op) {
    case Op::mov: case Op::add: case Op::sub: case Op::mul: case Op::mad: case Op::div:
    case Op::rem: case Op::min: case Op::max: case Op::abs: case Op::neg: case Op::and_:
    case Op::or_: case Op::xor_: case Op::not_: case Op::shl: case Op::shr: case Op::setp:
    case Op::selp: case Op::cvt: case Op::cvta: return true;
    default: return false;
  }
}

void regs_in(const Arg& a, std::vector<int>& out) {
  if (a.kind == Arg::Kind::reg) out.push_back(a.reg);
  for (const Arg& e : a.elems) regs_in(e, out);
}

bool strong_scalar_load(const Instr& in) {
  return in.op == Op::ld && in.sem != Sem::weak && in.vec == 1 && in.guard < 0;
}

// The body [begin, end] of the loop closed by the branch at `end`, or -1.
int spin_head(const Program& p, int begin, int end) {
  int head = -1;
  std::set<int> written, defined;
  for (int i = begin; i < end; ++i) {
    const Instr& in = p.code[static_cast<std::size_t>(i)];
    if (strong_scalar_load(in)) {
      if (head >= 0) return -1;
      head = i;
    } else if (!pure_alu(in.op)) {
      return -1;
    }
    std::vector<int> dst;
    regs_in(in.args.at(0), dst);
    written.insert(dst.begin(), dst.end());
  }
  for (int i = begin; i <= end; ++i) {  // each read: an invariant, or written earlier this trip
    const Instr& in = p.code[static_cast<std::size_t>(i)];
    std::vector<int> src;
    if (in.guard >= 0) src.push_back(in.guard);
    for (std::size_t k = i == end ? 0 : 1; k < in.args.size(); ++k) regs_in(in.args[k], src);
    for (int r : src)
      if (written.count(r) != 0 && defined.count(r) == 0) return -1;
    if (i == end) break;
    std::vector<int> dst;
    regs_in(in.args.at(0), dst);
    defined.insert(dst.begin(), dst.end());
  }
  return head;
}

}  // namespace

void mark_spin_loops(Program& p) {
  for (std::size_t i = 0; i < p.code.size(); ++i) {
    const Instr& b = p.code[i];
    if (b.op != Op::bra || b.guard < 0 || b.target > static_cast<int>(i)) continue;
    int head = spin_head(p, b.target, static_cast<int>(i));
    if (head < 0) continue;
    p.code[static_cast<std::size_t>(head)].spin_begin = b.target;
    p.code[static_cast<std::size_t>(head)].spin_end = static_cast<int>(i);
  }
}

}  // namespace heddle::ptx
