#include "models/ptx/narrow_float.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>

namespace heddle::ptx {
namespace {

int bias(const FloatFormat& f) { return (1 << (f.exp_bits - 1)) - 1; }

// 2^k for k in the normal range of double [-1022, 1023]: multiplying by it is
// exact whenever the product is a normal double (every scaling here), and
// costs a multiply where std::ldexp costs a libm call (the fp8 GEMMs' hot path).
double pow2(int k) { return std::bit_cast<double>(static_cast<std::uint64_t>(k + 1023) << 52); }

// The unbiased exponent of finite `a` > 0 (std::ilogb), or `floor` when
// it is below: a subnormal double is below every format's smallest exponent.
int exponent_at_least(double a, int floor) {
  const auto field = static_cast<int>(std::bit_cast<std::uint64_t>(a) >> 52 & 0x7ff);
  return field == 0 ? floor : std::max(field - 1023, floor);
}

// The largest finite exponent; e4m3 uses the all-ones exponent for numbers too.
int max_exponent(const FloatFormat& f) { return (1 << f.exp_bits) - (f.has_inf ? 2 : 1) - bias(f); }

// The largest finite value: e4m3's all-ones mantissa at the top exponent is NaN.
double max_finite(const FloatFormat& f) {
  double top = 2.0 - (f.has_inf ? 1.0 : 2.0) * pow2(-f.man_bits);
  return top * pow2(max_exponent(f));
}

std::uint32_t sign_bit(const FloatFormat& f) { return 1u << (f.exp_bits + f.man_bits); }

std::uint32_t infinity(const FloatFormat& f) { return ((1u << f.exp_bits) - 1) << f.man_bits; }

// The encoding of a finite, non-negative value exactly representable in `f`.
std::uint32_t pack(double v, const FloatFormat& f) {
  if (v == 0) return 0;
  int emin = 1 - bias(f);
  int e = exponent_at_least(v, emin - 1);
  if (e < emin) return static_cast<std::uint32_t>(v * pow2(f.man_bits - emin));
  auto mant = static_cast<std::uint32_t>(v * pow2(f.man_bits - e)) - (1u << f.man_bits);
  return static_cast<std::uint32_t>(e + bias(f)) << f.man_bits | mant;
}

}  // namespace

const FloatFormat& format_of(const Type& t) {
  switch (t.kind) {
    case Type::Kind::bf: return kBF16;
    case Type::Kind::e4m3: return kE4M3;
    case Type::Kind::e5m2: return kE5M2;
    default: return kF16;
  }
}

double decode(std::uint32_t bits, const FloatFormat& f) {
  const std::uint32_t man_mask = (1u << f.man_bits) - 1, exp_mask = (1u << f.exp_bits) - 1;
  const std::uint32_t e = bits >> f.man_bits & exp_mask, m = bits & man_mask;
  const double sign = (bits & sign_bit(f)) ? -1.0 : 1.0;
  if (f.has_inf && e == exp_mask)
    return m == 0 ? sign * std::numeric_limits<double>::infinity() : std::numeric_limits<double>::quiet_NaN();
  if (!f.has_inf && e == exp_mask && m == man_mask) return std::numeric_limits<double>::quiet_NaN();
  if (e == 0) return sign * static_cast<double>(m) * pow2(1 - bias(f) - f.man_bits);
  return sign * static_cast<double>(m | (1u << f.man_bits)) *
         pow2(static_cast<int>(e) - bias(f) - f.man_bits);
}

// Rounds |x| to a multiple of the format's quantum at x's exponent (the
// subnormal quantum below the smallest normal), then encodes it; overflow
// follows IEEE 754-2019 section 7.4 (infinity for round-to-nearest and
// the directed roundings away from zero, the largest finite otherwise).
std::uint32_t encode(double x, const FloatFormat& f, Rounding r, bool satfinite) {
  if (std::isnan(x)) return f.nan;
  const bool neg = std::signbit(x);
  const std::uint32_t sign = neg ? sign_bit(f) : 0;
  const double a = std::fabs(x), top = max_finite(f);
  const bool away = r == Rounding::nearest_even || (r == Rounding::up && !neg) || (r == Rounding::down && neg);
  auto overflow = [&] {
    if (satfinite || !away) return sign | pack(top, f);
    return f.has_inf ? sign | infinity(f) : f.nan;
  };
  if (std::isinf(a)) return overflow();
  const int emin = 1 - bias(f);
  const int e = a == 0 ? emin : exponent_at_least(a, emin);
  const double q = a * pow2(f.man_bits - e);  // exact: a power-of-two scaling, q < 2^(man_bits + 1)
  const auto whole = static_cast<std::int64_t>(q);  // floor: 0 <= q < 2^12
  double n = static_cast<double>(whole);
  const double frac = q - n;
  if (frac > 0) {
    if (r == Rounding::nearest_even) {
      if (frac > 0.5 || (frac == 0.5 && (whole & 1) != 0)) n += 1;
    } else if (away) {
      n += 1;  // rp of a positive or rm of a negative value: away from zero
    }
  }
  const double v = n * pow2(e - f.man_bits);  // infinity past double's range, as ldexp
  if (v > top) return overflow();
  // n quanta at exponent e: the encoding is (e - emin) << man_bits plus n,
  // which carries into the exponent when rounding reached 2^(man_bits + 1)
  // and is n itself for subnormals (e == emin).
  return sign |
         ((static_cast<std::uint32_t>(e - emin) << f.man_bits) + static_cast<std::uint32_t>(n));
}

double add_to_odd(double x, double y) {
  double s = x + y;
  if (!std::isfinite(s)) return s;
  double bb = s - x;
  double err = (x - (s - bb)) + (y - bb);  // Knuth's TwoSum: x + y == s + err exactly
  if (err == 0 || (std::bit_cast<std::uint64_t>(s) & 1) != 0) return s;
  return std::nextafter(s, err > 0 ? std::numeric_limits<double>::infinity()
                                   : -std::numeric_limits<double>::infinity());
}

}  // namespace heddle::ptx
