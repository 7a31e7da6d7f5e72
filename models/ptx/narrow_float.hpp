// The narrow floating-point formats of PTX (ISA 5.2.5: .f16, .bf16, .e4m3,
// .e5m2) as exact values: decoding to double and rounding a double to a
// format with the ISA's rounding modes and saturation. Shared by half.cpp
// (arithmetic, cvt) and wgmma.cpp (fp8 operands).
#pragma once
#include <cstdint>

#include "models/ptx/program.hpp"

namespace heddle::ptx {

/// A binary floating-point format: exponent and mantissa widths, whether
/// the all-ones exponent means infinity (IEEE) or only NaN (e4m3,
/// OCP FP8 spec 1.0 section 5.1), and the canonical NaN PTX writes.
struct FloatFormat {
  int exp_bits = 0, man_bits = 0;
  bool has_inf = true;
  std::uint32_t nan = 0;
};

inline constexpr FloatFormat kF16{5, 10, true, 0x7fff};
inline constexpr FloatFormat kBF16{8, 7, true, 0x7fff};
inline constexpr FloatFormat kE4M3{4, 3, false, 0x7f};
inline constexpr FloatFormat kE5M2{5, 2, true, 0x7f};
/// .tf32 (PTX ISA 5.2.5.2): an f32 whose low 13 mantissa bits the mma ignores;
/// decode(bits >> 13, kTF32) is its value.
inline constexpr FloatFormat kTF32{8, 10, true, 0x7ffff};

/// The format of one element of narrow type `t` (f16, bf16, e4m3, e5m2).
const FloatFormat& format_of(const Type& t);

/// The rounding of a conversion or operation (PTX ISA 9.7.9.21, cvt:
/// .rn/.rz/.rm/.rp; the integer forms .rni/.rzi/.rmi/.rpi).
enum class Rounding { nearest_even, zero, down, up };

/// The exact value of `bits` in format `f` (NaN for every NaN encoding).
double decode(std::uint32_t bits, const FloatFormat& f);
/// `x` rounded to format `f`; `satfinite` clamps infinities and overflow
/// to the largest finite value (NaN stays NaN, as the canonical NaN).
std::uint32_t encode(double x, const FloatFormat& f, Rounding r, bool satfinite);
/// The double nearest `x + y` by round-to-odd (Boldo and Melquiond, "Emulation
/// of FMA and correctly rounded sums", IEEE TC 2008, section 3): rounding it
/// again to any format of at most 51 mantissa bits gives the correctly
/// rounded sum, in any rounding mode.
double add_to_odd(double x, double y);

}  // namespace heddle::ptx
