// The narrow floats in the ALU: add/sub/mul/fma/min/max/neg/abs on .f16,
// .bf16, .f16x2 and .bf16x2 (PTX ISA 9.7.4, half precision floating-point
// instructions), setp on them (9.7.7.1), and cvt between f32/f64, integers,
// f16, bf16, e4m3 and e5m2 (9.7.9.21), each with IEEE round-to-nearest-even
// unless a rounding modifier says otherwise. Packed pairs compute element
// by element; element 0 is the low half of the register.
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>

#include "models/ptx/narrow_float.hpp"
#include "models/ptx/opcodes.hpp"
#include "models/ptx/warp.hpp"

namespace heddle::ptx {
namespace {


Type element(const Type& t) { return Type{t.kind, t.bytes / t.pack, 1}; }

Rounding rounding(const Instr& in) {
  if (in.flag(kRoundZero)) return Rounding::zero;
  if (in.flag(kRoundDown)) return Rounding::down;
  if (in.flag(kRoundUp)) return Rounding::up;
  return Rounding::nearest_even;
}

// The value of one element: any float type or integer, as a double that
// rounds like the exact value (integers wider than 53 bits: round-to-odd).
double value_of(std::uint64_t bits, const Type& t) {
  if (t.is_narrow_float()) return decode(static_cast<std::uint32_t>(bits), format_of(t));
  if (t.kind == Type::Kind::f)
    return t.bytes == 8 ? std::bit_cast<double>(bits) : std::bit_cast<float>(static_cast<std::uint32_t>(bits));
  if (t.is_signed()) {
    std::int64_t v = sign_extend(bits, t.bytes);
    auto d = static_cast<double>(v);
    return static_cast<__int128>(d) == v ? d : add_to_odd(d, static_cast<double>(v - static_cast<std::int64_t>(d)));
  }
  std::uint64_t v = truncate(bits, t.bytes);
  auto d = static_cast<double>(v);
  if (static_cast<unsigned __int128>(d) == v) return d;
  return add_to_odd(d, static_cast<double>(static_cast<__int128>(v) - static_cast<__int128>(d)));
}

// One element of type `t` from `x`: a narrow float rounded (with .satfinite,
// .sat to [0, 1] and .relu), f32/f64 (x is exact in them here), or an
// integer rounded by the .rni/.rzi/... modifier and saturated (9.7.9.21).
std::uint64_t element_from(double x, const Type& t, const Instr& in) {
  if (std::isnan(x) && (in.flag(kSat) || (t.kind != Type::Kind::f && !t.is_narrow_float()))) return 0;
  if (in.flag(kRelu) && !std::isnan(x) && x < 0) x = 0;
  if (in.flag(kSat) && !std::isnan(x)) x = std::clamp(x, 0.0, 1.0);
  if (t.is_narrow_float()) return encode(x, format_of(t), rounding(in), in.flag(kSatfinite));
  if (t.kind == Type::Kind::f && std::isnan(x)) return t.bytes == 8 ? 0x7fffffffffffffffull : 0x7fffffffu;  // canonical
  if (t.kind == Type::Kind::f)
    return t.bytes == 8 ? std::bit_cast<std::uint64_t>(x) : std::bit_cast<std::uint32_t>(static_cast<float>(x));
  return float_to_int(x, t, rounding(in));
}

// .ftz (f16 only): subnormal inputs and results are sign-preserving zeros.
double flush(double x, const Instr& in) {
  if (in.flag(kFtz) && x != 0 && std::fabs(x) < std::ldexp(1.0, -14)) return std::copysign(0.0, x);
  return x;
}

std::uint64_t round_result(double x, const Type& t, const Instr& in) {
  auto bits = static_cast<std::uint32_t>(element_from(x, t, in));
  if (in.flag(kFtz) && t.kind == Type::Kind::f && (bits & 0x7c00) == 0 && (bits & 0x3ff) != 0)
    bits &= 0x8000;  // a subnormal f16 result
  if (in.flag(kRelu) && std::isnan(x)) bits = format_of(t).nan;
  return bits;
}

// min/max (9.7.4.x): a NaN operand yields the other (both NaN, or .NaN: the
// canonical NaN); -0 orders below +0.
std::uint64_t min_max(bool is_max, double x, double y, const Type& t, const Instr& in) {
  const FloatFormat& f = format_of(t);
  if (std::isnan(x) && std::isnan(y)) return f.nan;
  if ((std::isnan(x) || std::isnan(y)) && in.flag(kNaN)) return f.nan;
  if (std::isnan(x)) return round_result(y, t, in);
  if (std::isnan(y)) return round_result(x, t, in);
  bool x_less = x < y || (x == y && std::signbit(x) && !std::signbit(y));
  return round_result(is_max != x_less ? x : y, t, in);
}

// One element of an arithmetic instruction.
std::uint64_t arith(const Instr& in, std::uint32_t a, std::uint32_t b, std::uint32_t c, const Type& t) {
  const FloatFormat& f = format_of(t);
  const std::uint32_t sign = 1u << (f.exp_bits + f.man_bits);
  double x = flush(decode(a, f), in), y = flush(decode(b, f), in);
  switch (in.op) {
    case Op::neg: return (std::isnan(x) ? a : a ^ sign);
    case Op::abs: return (std::isnan(x) ? a : a & ~sign);
    case Op::add: return round_result(add_to_odd(x, y), t, in);
    case Op::sub: return round_result(add_to_odd(x, -y), t, in);
    case Op::mul: return round_result(x * y, t, in);  // exact: at most 2 x 11 significant bits
    case Op::mad: return round_result(add_to_odd(x * y, flush(decode(c, f), in)), t, in);
    case Op::min: return min_max(false, x, y, t, in);
    case Op::max: return min_max(true, x, y, t, in);
    default: throw ModelError(fmt::format("`{}` is not a half-precision operation", in.opcode), in.loc);
  }
}

std::uint64_t each_element(const Type& t, std::uint64_t a, std::uint64_t b, std::uint64_t c,
                           const Instr& in) {
  const Type e = element(t);
  const int bits = 8 * e.bytes;
  std::uint64_t out = 0;
  for (int k = 0; k < t.pack; ++k) {
    auto part = [&](std::uint64_t v) { return static_cast<std::uint32_t>(truncate(v >> (bits * k), e.bytes)); };
    out |= truncate(arith(in, part(a), part(b), part(c), e), e.bytes) << (bits * k);
  }
  return out;
}

// cvt (9.7.9.21): a pair destination from two f32 sources takes the first
// into its upper half; pair to pair and scalar to scalar go element-wise.
std::uint64_t convert_narrow(Warp& w, const Instr& in, int lane) {
  const Type &to = in.type, &from = in.type2;
  const Type te = element(to), fe = element(from);
  const int bits = 8 * te.bytes;
  if (to.pack == 2 && from.pack == 1) {
    double hi = value_of(w.value(in.args.at(1), lane, from), from);
    double lo = value_of(w.value(in.args.at(2), lane, from), from);
    return element_from(lo, te, in) | element_from(hi, te, in) << bits;
  }
  std::uint64_t src = w.value(in.args.at(1), lane, from), out = 0;
  for (int k = 0; k < to.pack; ++k) {
    double x = value_of(truncate(src >> (8 * fe.bytes * k), fe.bytes), fe);
    out |= truncate(element_from(x, te, in), te.bytes) << (bits * k);
  }
  return out;
}

}  // namespace

std::uint64_t float_to_int(double x, const Type& t, Rounding r) {
  if (std::isnan(x)) return 0;
  x = r == Rounding::zero ? std::trunc(x) : r == Rounding::down ? std::floor(x)
      : r == Rounding::up ? std::ceil(x) : std::nearbyint(x);
  const int bits = 8 * t.bytes;
  if (t.is_signed()) {
    double lo = -std::ldexp(1.0, bits - 1), hi = std::ldexp(1.0, bits - 1);
    if (x <= lo) return static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::min() >> (64 - bits));
    if (x >= hi) return truncate(static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max() >> (64 - bits)), t.bytes);
    return static_cast<std::uint64_t>(static_cast<std::int64_t>(x));
  }
  if (x <= 0) return 0;
  if (x >= std::ldexp(1.0, bits)) return truncate(~std::uint64_t{0}, t.bytes);
  return static_cast<std::uint64_t>(x);
}

bool compare_float(const Instr& in, double x, double y) {
  const bool nan = std::isnan(x) || std::isnan(y);
  switch (in.compare) {
    case Cmp::num:
      return !nan;
    case Cmp::nan:
      return nan;
    case Cmp::equ:
    case Cmp::neu:
    case Cmp::ltu:
    case Cmp::leu:
    case Cmp::gtu:
    case Cmp::geu:
      if (nan) return true;  // the unordered forms are true on NaN, the ordered ones false
      break;
    default:
      if (nan) return false;
  }
  switch (in.compare) {
    case Cmp::eq:
    case Cmp::equ:
      return x == y;
    case Cmp::ne:
    case Cmp::neu:
      return x != y;
    case Cmp::lt:
    case Cmp::ltu:
      return x < y;
    case Cmp::le:
    case Cmp::leu:
      return x <= y;
    case Cmp::gt:
    case Cmp::gtu:
      return x > y;
    case Cmp::ge:
    case Cmp::geu:
      return x >= y;
    default:
      throw ModelError(fmt::format("setp comparison .{} is not modelled for floats", in.cmp));
  }
}

bool combine(const Instr& in, bool t, bool c) {
  if (in.flag(kAnd)) return t && c;
  if (in.flag(kOr)) return t || c;
  if (in.flag(kXor)) return t != c;
  return t;
}

// setp's destinations (9.7.7.1): p = BoolOp(t, c), q = BoolOp(!t, c).
void write_setp(Warp& w, const Instr& in, int lane, bool t) {
  const Arg& d = in.args.at(0);
  bool c = in.args.size() > 3 ? w.value(in.args[3], lane, kPred) != 0 : false;
  if (d.kind != Arg::Kind::pair) return w.set(d, lane, combine(in, t, c), kPred);
  w.set(d.elems.at(0), lane, combine(in, t, c), kPred);
  w.set(d.elems.at(1), lane, combine(in, !t, c), kPred);
}

bool narrow_supported(const Instr& in) {
  switch (in.op) {
    case Op::mov: case Op::ld: case Op::st: case Op::selp: return true;  // bits moved as they are
    case Op::add: case Op::sub: case Op::mul: case Op::mad: case Op::min: case Op::max:
    case Op::neg: case Op::abs:  // .f16/.bf16 and their pairs; no fp8 arithmetic in PTX
      return (in.type.kind == Type::Kind::f || in.type.kind == Type::Kind::bf) && !in.has("xorsign");
    case Op::setp: return in.type.kind == Type::Kind::f || in.type.kind == Type::Kind::bf;
    case Op::cvt:
      return in.type.pack == in.type2.pack || (in.type.pack == 2 && in.type2.kind == Type::Kind::f &&
                                                in.type2.bytes == 4);
    default: return false;
  }
}

void narrow_alu(Warp& w, const Instr& in, int lane) {
  const auto& A = in.args;
  const Type& t = in.type;
  if (in.op == Op::cvt) return w.set(A[0], lane, convert_narrow(w, in, lane), t);
  if (in.op == Op::setp) {  // .f16x2: p gets the low halves' comparison, q the high halves'
    const Type e = element(t);
    std::uint64_t a = w.value(A.at(1), lane, t), b = w.value(A.at(2), lane, t);
    bool r[2] = {false, false};
    for (int k = 0; k < t.pack; ++k) {
      auto part = [&](std::uint64_t v) { return truncate(v >> (8 * e.bytes * k), e.bytes); };
      r[k] = compare_float(in, value_of(part(a), e), value_of(part(b), e));
    }
    if (t.pack == 1) return write_setp(w, in, lane, r[0]);
    const Arg& d = A[0];
    if (d.kind != Arg::Kind::pair) throw ModelError(fmt::format("`{}` writes p|q", in.opcode), in.loc);
    bool c = A.size() > 3 ? w.value(A[3], lane, kPred) != 0 : false;
    w.set(d.elems.at(0), lane, combine(in, r[0], c), kPred);
    return w.set(d.elems.at(1), lane, combine(in, r[1], c), kPred);
  }
  std::uint64_t a = w.value(A.at(1), lane, t), b = A.size() > 2 ? w.value(A[2], lane, t) : 0;
  std::uint64_t c = A.size() > 3 ? w.value(A[3], lane, t) : 0;
  w.set(A[0], lane, each_element(t, a, b, c, in), t);
}

}  // namespace heddle::ptx
