// Bit-manipulation instructions, lane by lane (PTX ISA 9.7.8: bfe 9.7.8.10,
// bfi 9.7.8.11, popc 9.7.8.3, clz 9.7.8.4, bfind 9.7.8.5, brev 9.7.8.7, lop3 9.7.8.12,
// shf 9.7.8.9; prmt 9.7.9.7), written as the ISA's pseudocode defines them.
#include <fmt/format.h>

#include <bit>

#include "models/ptx/warp.hpp"

namespace heddle::ptx {
namespace {


// bfe: `len` bits of `a` from `pos`, sign-filled for .s32/.s64 with a's bit
// at min(pos + len - 1, msb), zero-filled otherwise.
std::uint64_t bfe(std::uint64_t a, std::uint64_t b, std::uint64_t c, const Type& t) {
  const int msb = 8 * t.bytes - 1;
  const int pos = static_cast<int>(b & 0xff), len = static_cast<int>(c & 0xff);
  std::uint64_t sbit = 0;
  if (t.is_signed() && len != 0) sbit = a >> std::min(pos + len - 1, msb) & 1;
  std::uint64_t d = 0;
  for (int i = 0; i <= msb; ++i) {
    std::uint64_t bit = (i < len && pos + i <= msb) ? (a >> (pos + i) & 1) : sbit;
    d |= bit << i;
  }
  return d;
}

// bfi: b with `len` bits from `pos` replaced by a's low bits.
std::uint64_t bfi(std::uint64_t a, std::uint64_t b, std::uint64_t c, std::uint64_t d, const Type& t) {
  const int msb = 8 * t.bytes - 1;
  const int pos = static_cast<int>(c & 0xff), len = static_cast<int>(d & 0xff);
  std::uint64_t f = b;
  for (int i = 0; i < len && pos + i <= msb; ++i)
    f = (f & ~(std::uint64_t{1} << (pos + i))) | ((a >> i & 1) << (pos + i));
  return f;
}

// prmt: bytes of {b, a} (a is bytes 0-3) picked by the selectors in c; in
// the default mode a selector's bit 3 replicates the picked byte's sign.
std::uint64_t prmt(const Instr& in, std::uint32_t a, std::uint32_t b, std::uint32_t c) {
  const std::uint64_t tmp = std::uint64_t{b} << 32 | a;
  auto byte = [&](unsigned i) { return static_cast<std::uint32_t>(tmp >> (8 * (i & 7)) & 0xff); };
  std::uint32_t d = 0;
  const unsigned sel = c & 3;
  for (unsigned i = 0; i < 4; ++i) {
    std::uint32_t v = 0;
    if (in.has("f4e")) v = byte(sel + i);
    else if (in.has("b4e")) v = byte(sel - i);
    else if (in.has("rc8")) v = byte(sel);
    else if (in.has("ecl")) v = byte(std::max(i, sel));
    else if (in.has("ecr")) v = byte(std::min(i, sel));
    else if (in.has("rc16")) v = byte(2 * (c & 1) + (i & 1));
    else {
      unsigned s = c >> (4 * i) & 0xf;
      v = byte(s);
      if (s & 8) v = (v & 0x80) ? 0xff : 0;
    }
    d |= v << (8 * i);
  }
  return d;
}

// shf: the funnel {b, a} (a low) shifted left (upper word kept) or right
// (lower word kept) by c, clamped to 32 or taken mod 32.
std::uint64_t shf(const Instr& in, std::uint32_t a, std::uint32_t b, std::uint32_t c) {
  const std::uint32_t n = in.has("clamp") ? std::min<std::uint32_t>(c, 32) : c & 31;
  const std::uint64_t funnel = std::uint64_t{b} << 32 | a;
  if (in.has("l")) return static_cast<std::uint32_t>((funnel << n) >> 32);
  return static_cast<std::uint32_t>(funnel >> n);
}

}  // namespace

void bit_op(Warp& w, const Instr& in, int lane) {
  const auto& A = in.args;
  const Type& t = in.type;
  auto arg = [&](std::size_t i, const Type& ty) { return w.value(A.at(i), lane, ty); };
  switch (in.op) {
    case Op::bfe: return w.set(A[0], lane, bfe(arg(1, t), arg(2, kU32), arg(3, kU32), t), t);
    case Op::bfi: return w.set(A[0], lane, bfi(arg(1, t), arg(2, t), arg(3, kU32), arg(4, kU32), t), t);
    case Op::prmt:
      return w.set(A[0], lane, prmt(in, static_cast<std::uint32_t>(arg(1, kU32)),
                                    static_cast<std::uint32_t>(arg(2, kU32)),
                                    static_cast<std::uint32_t>(arg(3, kU32))), kU32);
    case Op::popc: return w.set(A[0], lane, static_cast<std::uint64_t>(std::popcount(truncate(arg(1, t), t.bytes))), kU32);
    case Op::clz: {
      std::uint64_t v = truncate(arg(1, t), t.bytes);
      return w.set(A[0], lane, static_cast<std::uint64_t>(std::countl_zero(v) - (64 - 8 * t.bytes)), kU32);
    }
    case Op::brev: {
      std::uint64_t v = arg(1, t), r = 0;
      for (int i = 0; i < 8 * t.bytes; ++i) r |= (v >> i & 1) << (8 * t.bytes - 1 - i);
      return w.set(A[0], lane, r, t);
    }
    case Op::lop3: {  // bit i of d = bit (a_i b_i c_i as a 3-bit number) of immLut
      if (A[0].kind == Arg::Kind::pair)
        throw ModelError(fmt::format("`{}`: the predicate form of lop3 is not modelled", in.opcode), in.loc);
      std::uint64_t a = arg(1, t), b = arg(2, t), c = arg(3, t), lut = arg(4, kU32), d = 0;
      for (int i = 0; i < 8 * t.bytes; ++i) {
        unsigned idx = static_cast<unsigned>((a >> i & 1) << 2 | (b >> i & 1) << 1 | (c >> i & 1));
        d |= (lut >> idx & 1) << i;
      }
      return w.set(A[0], lane, d, t);
    }
    case Op::bfind: {  // the most significant bit unlike the sign (signed) or set; .shiftamt: 31 - it
      const int bits = 8 * t.bytes;
      std::uint64_t v = truncate(arg(1, t), t.bytes);
      if (t.is_signed() && (v >> (bits - 1) & 1)) v = truncate(~v, t.bytes);
      if (v == 0) return w.set(A[0], lane, 0xffffffffu, kU32);
      int pos = 63 - std::countl_zero(v);
      return w.set(A[0], lane, static_cast<std::uint64_t>(in.has("shiftamt") ? bits - 1 - pos : pos), kU32);
    }
    case Op::shf:
      return w.set(A[0], lane, shf(in, static_cast<std::uint32_t>(arg(1, kU32)), static_cast<std::uint32_t>(arg(2, kU32)),
                                   static_cast<std::uint32_t>(arg(3, kU32))), kU32);
    default: throw ModelError(fmt::format("`{}` is not a bit operation", in.opcode), in.loc);
  }
}

}  // namespace heddle::ptx
