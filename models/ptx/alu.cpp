// Arithmetic, logic, comparison and conversion instructions, lane by lane
// (PTX ISA 9.7.1-9.7.4 integer and floating point, 9.7.6 setp/selp, 9.7.9.21 cvt).
#include <fmt/format.h>

#include <bit>
#include <cmath>

#include "models/ptx/warp.hpp"

namespace heddle::ptx {
namespace {

double to_float(std::uint64_t v, const Type& t) {
  if (t.bytes == 8) return std::bit_cast<double>(v);
  return std::bit_cast<float>(static_cast<std::uint32_t>(v));
}

std::uint64_t from_float(double d, const Type& t) {
  if (t.bytes == 8) return std::bit_cast<std::uint64_t>(d);
  return std::bit_cast<std::uint32_t>(static_cast<float>(d));
}

// The integer value of v as type t (sign-extended for signed types).
std::int64_t as_int(std::uint64_t v, const Type& t) {
  return t.is_signed() ? sign_extend(v, t.bytes) : static_cast<std::int64_t>(truncate(v, t.bytes));
}

bool compare(const Instr& in, std::uint64_t a, std::uint64_t b, const Type& t) {
  if (t.is_float()) return compare_float(in, to_float(a, t), to_float(b, t));
  bool s = t.is_signed();
  std::int64_t x = as_int(a, t), y = as_int(b, t);
  std::uint64_t ux = truncate(a, t.bytes), uy = truncate(b, t.bytes);
  switch (in.compare) {
    case Cmp::eq: return ux == uy;
    case Cmp::ne: return ux != uy;
    case Cmp::lt: return s ? x < y : ux < uy;
    case Cmp::le: return s ? x <= y : ux <= uy;
    case Cmp::gt: return s ? x > y : ux > uy;
    case Cmp::ge: return s ? x >= y : ux >= uy;
    case Cmp::lo: return ux < uy;
    case Cmp::ls: return ux <= uy;
    case Cmp::hi: return ux > uy;
    case Cmp::hs: return ux >= uy;
    default: throw ModelError(fmt::format("setp comparison .{} is not modelled", in.cmp));
  }
}

std::uint64_t convert(std::uint64_t v, const Type& to, const Type& from, const Instr& in) {
  if (from.is_float() && to.is_float()) return from_float(to_float(v, from), to);
  if (from.is_float()) {
    Rounding r = in.flag(kRoundNearestInt) ? Rounding::nearest_even : in.flag(kRoundDown) ? Rounding::down
                 : in.flag(kRoundUp) ? Rounding::up : Rounding::zero;
    return float_to_int(to_float(v, from), to, r);  // saturated, NaN to 0 (PTX ISA 9.7.9.21)
  }
  if (to.is_float())
    return from_float(from.is_signed() ? static_cast<double>(as_int(v, from))
                                       : static_cast<double>(truncate(v, from.bytes)),
                      to);
  return static_cast<std::uint64_t>(as_int(v, from));  // set() truncates to the destination
}

std::uint64_t float_op(Op op, std::uint64_t a, std::uint64_t b, std::uint64_t c, const Type& t) {
  double x = to_float(a, t), y = to_float(b, t);
  switch (op) {
    case Op::add: return from_float(x + y, t);
    case Op::sub: return from_float(x - y, t);
    case Op::mul: return from_float(x * y, t);
    case Op::mad: return from_float(std::fma(x, y, to_float(c, t)), t);
    case Op::div: return from_float(x / y, t);
    case Op::min: return from_float(std::fmin(x, y), t);
    case Op::max: return from_float(std::fmax(x, y), t);
    case Op::abs: return from_float(std::fabs(x), t);
    case Op::neg: return from_float(-x, t);
    default: throw ModelError("this floating-point operation is not modelled");
  }
}

// The high half of the double-width product (mul.hi/mad.hi, PTX ISA 9.7.1.3).
std::uint64_t high_product(std::int64_t x, std::int64_t y, std::uint64_t ux, std::uint64_t uy,
                           bool s, int bits) {
  if (s) return static_cast<std::uint64_t>(static_cast<__int128>(x) * y >> bits);
  return static_cast<std::uint64_t>(static_cast<unsigned __int128>(ux) * uy >> bits);
}

std::uint64_t int_op(const Instr& in, std::uint64_t a, std::uint64_t b, std::uint64_t c) {
  const Type& t = in.type;
  std::int64_t x = as_int(a, t), y = as_int(b, t);
  std::uint64_t ux = truncate(a, t.bytes), uy = truncate(b, t.bytes);
  bool s = t.is_signed(), wide = in.wide;
  int bits = 8 * t.bytes;
  switch (in.op) {
    case Op::add: return a + b;
    case Op::sub: return a - b;
    case Op::mul:
      if (in.flag(kHi)) return high_product(x, y, ux, uy, s, bits);
      return wide ? static_cast<std::uint64_t>(s ? x * y : static_cast<std::int64_t>(ux * uy)) : a * b;
    case Op::mad:
      if (in.flag(kHi)) return high_product(x, y, ux, uy, s, bits) + c;
      return (wide ? static_cast<std::uint64_t>(s ? x * y : static_cast<std::int64_t>(ux * uy)) : a * b) + c;
    case Op::div:
    case Op::rem:
      if (uy == 0) throw ModelError(fmt::format("`{}` divides by zero", in.opcode), in.loc);
      if (s && y == -1) return in.op == Op::div ? 0 - static_cast<std::uint64_t>(x) : 0;  // INT_MIN / -1 wraps
      if (in.op == Op::div) return s ? static_cast<std::uint64_t>(x / y) : ux / uy;
      return s ? static_cast<std::uint64_t>(x % y) : ux % uy;
    case Op::min: return s ? static_cast<std::uint64_t>(std::min(x, y)) : std::min(ux, uy);
    case Op::max: return s ? static_cast<std::uint64_t>(std::max(x, y)) : std::max(ux, uy);
    case Op::abs: return x < 0 ? 0 - static_cast<std::uint64_t>(x) : static_cast<std::uint64_t>(x);
    case Op::neg: return 0 - static_cast<std::uint64_t>(x);  // wraps: -INT_MIN is INT_MIN
    case Op::and_: return a & b;
    case Op::or_: return a | b;
    case Op::xor_: return a ^ b;
    case Op::not_: return t.kind == Type::Kind::pred ? !a : ~a;
    case Op::shl: return uy >= static_cast<std::uint64_t>(bits) ? 0 : a << uy;
    case Op::shr:
      if (s) return static_cast<std::uint64_t>(x >> std::min<std::uint64_t>(uy, bits - 1));
      return uy >= static_cast<std::uint64_t>(bits) ? 0 : ux >> uy;
    default: throw ModelError(fmt::format("`{}` is not an integer operation", in.opcode), in.loc);
  }
}

}  // namespace

void Warp::alu(const Instr& in, int lane) {
  if (in.narrow) return narrow_alu(*this, in, lane);
  if (in.op >= Op::bfi && in.op <= Op::bfind) return bit_op(*this, in, lane);
  const auto& A = in.args;
  const Type& t = in.type;
  auto arg = [&](std::size_t i, const Type& ty) { return value(A.at(i), lane, ty); };
  switch (in.op) {
    case Op::mov: {
      if (A.at(1).kind == Arg::Kind::vector) {  // pack {lo, hi}
        std::uint64_t v = 0;
        int part = t.bytes / static_cast<int>(A[1].elems.size());
        for (std::size_t k = 0; k < A[1].elems.size(); ++k)
          v |= truncate(value(A[1].elems[k], lane, Type{Type::Kind::b, part}), part) << (8 * part * k);
        return set(A[0], lane, v, t);
      }
      std::uint64_t v = arg(1, t);
      if (A[0].kind == Arg::Kind::vector) {  // unpack
        int part = t.bytes / static_cast<int>(A[0].elems.size());
        for (std::size_t k = 0; k < A[0].elems.size(); ++k)
          set(A[0].elems[k], lane, v >> (8 * part * k), Type{Type::Kind::b, part});
        return;
      }
      return set(A[0], lane, v, t);
    }
    case Op::setp: return write_setp(*this, in, lane, compare(in, arg(1, t), arg(2, t), t));
    case Op::selp: return set(A[0], lane, arg(3, Type{Type::Kind::pred, 1}) ? arg(1, t) : arg(2, t), t);
    case Op::cvt: return set(A[0], lane, convert(arg(1, in.type2), t, in.type2, in), t);
    case Op::cvta: {
      std::uint64_t v = arg(1, Type{Type::Kind::u, 8});
      if (in.space == Space::shared) v = in.to ? v - kSharedWindow : v + kSharedWindow;
      if (in.space == Space::local) v = in.to ? v - kLocalWindow : v + kLocalWindow;
      return set(A[0], lane, v, t);
    }
    default: break;
  }
  bool wide = in.wide;
  Type dst = wide ? Type{t.kind, t.bytes * 2} : t;
  std::uint64_t a = arg(1, t), b = A.size() > 2 ? arg(2, t) : 0;
  std::uint64_t c = A.size() > 3 ? arg(3, dst) : 0;
  set(A[0], lane, t.is_float() ? float_op(in.op, a, b, c, t) : int_op(in, a, b, c), dst);
}

}  // namespace heddle::ptx
