// atom and red (PTX ISA 9.7.13.5-6): each lane's read-modify-write is one
// visible operation on its bytes, strong (memory_model.cpp): a .release/.acq_rel
// one releases into the location's clocks, an .acquire/.acq_rel one acquires
// them; without .sem an atomic is .relaxed. Atomics never race with each
// other or with strong ld/st, and race with unordered plain accesses.
#include <fmt/format.h>

#include <bit>
#include <cstring>

#include "models/ptx/warp.hpp"

namespace heddle::ptx {
namespace {

std::uint64_t apply(const Instr& in, std::uint64_t old, std::uint64_t b, std::uint64_t c) {
  const Type& t = in.type;
  auto sx = [&](std::uint64_t v) { return sign_extend(v, t.bytes); };
  if (in.has("add")) {
    if (t.is_float() && t.bytes == 4)
      return std::bit_cast<std::uint32_t>(std::bit_cast<float>(static_cast<std::uint32_t>(old)) +
                                          std::bit_cast<float>(static_cast<std::uint32_t>(b)));
    if (t.is_float()) return std::bit_cast<std::uint64_t>(std::bit_cast<double>(old) + std::bit_cast<double>(b));
    return old + b;
  }
  if (in.has("exch")) return b;
  if (in.has("cas")) return old == b ? c : old;
  if (in.has("and")) return old & b;
  if (in.has("or")) return old | b;
  if (in.has("xor")) return old ^ b;
  if (in.has("inc")) return old >= b ? 0 : old + 1;
  if (in.has("dec")) return old == 0 || old > b ? b : old - 1;
  if (in.has("min")) return t.is_signed() ? (sx(old) < sx(b) ? old : b) : std::min(old, b);
  if (in.has("max")) return t.is_signed() ? (sx(old) > sx(b) ? old : b) : std::max(old, b);
  throw ModelError(fmt::format("`{}`: this atomic operation is not modelled", in.opcode), in.loc);
}

}  // namespace

void atomic(Warp& w, const Instr& in, std::uint32_t exec) {
  const bool returns = in.op == Op::atom;
  const std::size_t first = returns ? 1 : 0;  // the address operand
  const int bytes = in.type.bytes;
  auto& ex = Execution::current();
  for (int l = 0; l < 32; ++l) {
    if (!(exec >> l & 1)) continue;
    auto [r, off] = w.memory(in, in.args.at(first), l, in.space, static_cast<std::size_t>(bytes));
    PendingOp p;
    const char* name = returns ? "atom" : "red";
    p.name = name;
    p.loc = in.loc;
    p.object = r->id();
    p.has_object = true;
    auto lo = static_cast<std::uint32_t>(off);
    p.footprint.push_back(Access{r->id(), lo, lo + static_cast<std::uint32_t>(bytes), true});
    ex.visible(std::move(p));
    r->reduce(off, static_cast<std::size_t>(bytes), Proxy::generic, name, in.loc);
    acquire_at(w, in, r, off);
    std::uint64_t old = 0;
    std::memcpy(&old, r->bytes() + off, bytes);
    std::uint64_t b = w.value(in.args.at(first + 1), l, in.type);
    std::uint64_t c = in.args.size() > first + 2 ? w.value(in.args[first + 2], l, in.type) : 0;
    std::uint64_t now = apply(in, old, b, c);
    std::memcpy(r->bytes() + off, &now, bytes);
    release_at(w, in, r, off);
    if (returns) w.set(in.args.at(0), l, old, in.type);
  }
}

}  // namespace heddle::ptx
