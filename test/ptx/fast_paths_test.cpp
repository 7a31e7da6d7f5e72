// The interpreter's fast paths against slow, independent answers: the
// narrow-float encode/decode (power-of-two scaling by bits, no libm) against
// a search over every value of the format; setp's comparisons (decoded once
// into Instr::compare) against C++'s; and global addresses resolved through
// the last-hit mapping first, on two buffers accessed alternately.
#include <fmt/format.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <utility>
#include <vector>

#include "models/ptx/narrow_float.hpp"
#include "test/ptx/ptx_support.hpp"
#include "test/support/harness.hpp"

using namespace heddle;
using namespace heddle::ptx;
using namespace heddle::test;

namespace {

// Every finite non-negative value of `f` with its bits, ascending (std::ldexp,
// not decode), then one past the largest: the value an overflow rounds to.
std::vector<std::pair<double, std::uint32_t>> finite_values(const FloatFormat& f) {
  std::vector<std::pair<double, std::uint32_t>> out;
  const int bias = (1 << (f.exp_bits - 1)) - 1;
  const std::uint32_t mantissas = 1u << f.man_bits, exps = 1u << f.exp_bits;
  for (std::uint32_t e = 0; e < exps; ++e)
    for (std::uint32_t m = 0; m < mantissas; ++m) {
      if (e == exps - 1 && (f.has_inf || m == mantissas - 1)) continue;  // infinity, NaN
      double v = e == 0 ? std::ldexp(m, 1 - bias - f.man_bits)
                        : std::ldexp(m + mantissas, static_cast<int>(e) - bias - f.man_bits);
      out.emplace_back(v, e << f.man_bits | m);
    }
  auto [top, bits] = out.back();
  out.emplace_back(top + (top - out[out.size() - 2].first), bits + 1);
  return out;
}

// What encode must give for `x` by the ISA's rounding: the neighbours'
// midpoint decides round-to-nearest (ties to the even encoding).
std::uint32_t expected(double x, const FloatFormat& f,
                       const std::vector<std::pair<double, std::uint32_t>>& vals, Rounding r,
                       bool satfinite) {
  const bool neg = std::signbit(x);
  const double a = std::fabs(x);
  auto hi = std::lower_bound(vals.begin(), vals.end(), std::make_pair(a, 0u));
  auto lo = hi != vals.end() && hi->first == a ? hi : std::prev(hi);
  if (hi == vals.end()) hi = lo;  // past the overflow value: both neighbours overflow
  bool up = false;
  if (lo->first != a) {
    if (r == Rounding::nearest_even) {
      double mid = (lo->first + hi->first) / 2;
      up = a > mid || (a == mid && (hi->second & 1) == 0);
    } else {
      up = (r == Rounding::up && !neg) || (r == Rounding::down && neg);
    }
  }
  auto pick = up ? hi : lo;
  const std::uint32_t sign = neg ? 1u << (f.exp_bits + f.man_bits) : 0;
  if (pick == std::prev(vals.end())) {  // overflow
    const bool away =
        r == Rounding::nearest_even || (r == Rounding::up && !neg) || (r == Rounding::down && neg);
    if (satfinite || !away) return sign | std::prev(pick)->second;
    return f.has_inf ? sign | pick->second : f.nan;
  }
  return sign | pick->second;
}

// The values, their neighbours' midpoints and a hair either side, quarter
// points, and doubles far outside the format (subnormal doubles, huge ones).
std::vector<double> probes(const std::vector<std::pair<double, std::uint32_t>>& vals) {
  std::vector<double> out = {5e-324, 1e-310, 1e-300, 1e300, std::numeric_limits<double>::max()};
  for (std::size_t i = 0; i + 1 < vals.size(); ++i) {
    double lo = vals[i].first, hi = vals[i + 1].first, mid = (lo + hi) / 2;
    for (double x :
         {lo, mid, std::nextafter(mid, 0.0), std::nextafter(mid, hi), lo + (hi - lo) / 4, hi * 1.5})
      out.push_back(x);
  }
  std::size_t n = out.size();
  for (std::size_t i = 0; i < n; ++i) out.push_back(-out[i]);
  return out;
}

// A one-warp kernel: bit i of `out` (u32 words %r8.. in order) holds setp's
// result for case i (at most 192 cases: a final state shows 64 bytes in full).
std::string setp_kernel(const std::vector<std::string>& cases) {
  std::string body = "  cvta.to.global.u64 %rd2, %rd1;\n";
  const std::size_t words = (cases.size() + 31) / 32;
  for (std::size_t w = 0; w < words; ++w) body += fmt::format("  mov.u32 %r{}, 0;\n", 8 + w);
  for (std::size_t i = 0; i < cases.size(); ++i)
    body += fmt::format(
        "{}\n  selp.u32 %r3, 1, 0, %p1;\n  shl.b32 %r3, %r3, {};\n  or.b32 %r{}, %r{}, %r3;\n",
        cases[i], i % 32, 8 + i / 32, 8 + i / 32);
  for (std::size_t w = 0; w < words; ++w)
    body += fmt::format("  st.global.u32 [%rd2+{}], %r{};\n", 4 * w, 8 + w);
  return ptx_entry("cmp", body + "  ret;");
}

}  // namespace

TEST_CASE("ptx fast paths: narrow-float encode and decode agree with a search over every value",
          "[ptx][values]") {
  for (const FloatFormat* f : {&kF16, &kBF16, &kE4M3, &kE5M2}) {
    INFO("exponent bits " << f->exp_bits << ", mantissa bits " << f->man_bits);
    const auto vals = finite_values(*f);
    for (std::size_t i = 0; i + 1 < vals.size(); ++i) {
      REQUIRE(decode(vals[i].second, *f) == vals[i].first);
      REQUIRE(decode(vals[i].second | 1u << (f->exp_bits + f->man_bits), *f) == -vals[i].first);
    }
    long bad = 0;
    for (double x : probes(vals))
      for (Rounding r : {Rounding::nearest_even, Rounding::zero, Rounding::down, Rounding::up})
        for (bool sat : {false, true}) {
          std::uint32_t want = expected(x, *f, vals, r, sat), got = encode(x, *f, r, sat);
          if (got != want && bad++ == 0)
            FAIL_CHECK(fmt::format("encode({:a}, rounding {}, satfinite {}) = {:#x}, want {:#x}", x,
                                   static_cast<int>(r), sat, got, want));
        }
    CHECK(bad == 0);
  }
}

TEST_CASE(
    "ptx fast paths: setp's integer, f32 and f16 comparisons match C++'s, NaN and -0 included",
    "[ptx][values]") {
  std::vector<std::string> cases;
  std::vector<std::uint32_t> want;
  const std::vector<std::pair<std::int32_t, std::int32_t>> ints = {
      {-1, 1}, {1, -1}, {5, 5}, {INT32_MIN, 1}};
  for (auto [x, y] : ints) {
    const auto ux = static_cast<std::uint32_t>(x), uy = static_cast<std::uint32_t>(y);
    const std::vector<std::pair<const char*, bool>> forms = {
        {"eq.s32", x == y},   {"ne.s32", x != y},  {"lt.s32", x < y},   {"le.s32", x <= y},
        {"gt.s32", x > y},    {"ge.s32", x >= y},  {"lt.u32", ux < uy}, {"lo.u32", ux < uy},
        {"ls.u32", ux <= uy}, {"hi.u32", ux > uy}, {"hs.u32", ux >= uy}};
    for (auto [form, result] : forms) {
      cases.push_back(fmt::format(
          "  mov.b32 %r1, {:#x};\n  mov.b32 %r2, {:#x};\n  setp.{} %p1, %r1, %r2;", ux, uy, form));
      want.push_back(result);
    }
  }
  // f32 bits and f16 bits of the same pairs: 1 < 2, 2 > 1, 1 = 1, NaN, -0 = +0.
  const std::vector<std::pair<float, float>> floats = {
      {1, 2}, {2, 1}, {1, 1}, {NAN, 1}, {-0.0f, 0.0f}};
  const std::vector<std::pair<std::uint16_t, std::uint16_t>> halves = {
      {0x3c00, 0x4000}, {0x4000, 0x3c00}, {0x3c00, 0x3c00}, {0x7e00, 0x3c00}, {0x8000, 0x0000}};
  for (std::size_t i = 0; i < floats.size(); ++i) {
    auto [x, y] = floats[i];
    const bool nan = std::isnan(x) || std::isnan(y);
    const std::vector<std::pair<const char*, bool>> forms = {
        {"eq", x == y},         {"ne", !nan && x != y}, {"lt", x < y},
        {"le", x <= y},         {"gt", x > y},          {"ge", x >= y},
        {"equ", nan || x == y}, {"neu", x != y},        {"ltu", nan || x < y},
        {"leu", nan || x <= y}, {"gtu", nan || x > y},  {"geu", nan || x >= y}};
    for (auto [form, result] : forms) {
      cases.push_back(
          fmt::format("  mov.b32 %r1, {:#x};\n  mov.b32 %r2, {:#x};\n  setp.{}.f32 %p1, %r1, %r2;",
                      std::bit_cast<std::uint32_t>(x), std::bit_cast<std::uint32_t>(y), form));
      want.push_back(result);
      cases.push_back(fmt::format(
          "  mov.b16 %rs1, {:#x};\n  mov.b16 %rs2, {:#x};\n  setp.{}.f16 %p1, %rs1, %rs2;",
          halves[i].first, halves[i].second, form));
      want.push_back(result);
    }
  }
  REQUIRE(cases.size() <= 192);
  std::vector<std::uint32_t> bits((cases.size() + 31) / 32);
  for (std::size_t i = 0; i < want.size(); ++i) bits[i / 32] |= want[i] << (i % 32);
  const std::string args = fmt::format("out=buffer:{}", 4 * bits.size());
  CHECK(final_out({write_ptx(setp_kernel(cases)), "cmp", 32, args}) ==
        "out=" + u32_hex(bits) + "\n");
}

TEST_CASE(
    "ptx fast paths: two buffers accessed alternately resolve to their own bytes; past one's end "
    "is unmapped",
    "[ptx][hostile]") {
  const std::string body = R"(  cvta.to.global.u64 %rd4, %rd1;
  cvta.to.global.u64 %rd5, %rd2;
  cvta.to.global.u64 %rd6, %rd3;
  mov.u32 %r1, %laneid;
  mul.wide.u32 %rd7, %r1, 4;
  add.u64 %rd8, %rd4, %rd7;
  add.u64 %rd9, %rd5, %rd7;
  add.u64 %rd10, %rd6, %rd7;
  add.u32 %r2, %r1, 100;
  st.global.u32 [%rd8], %r1;
  st.global.u32 [%rd9], %r2;
  ld.global.u32 %r3, [%rd8];
  ld.global.u32 %r4, [%rd9];
  ld.global.u32 %r5, [%rd8];
  add.u32 %r6, %r3, %r4;
  add.u32 %r6, %r6, %r5;
  st.global.u32 [%rd10], %r6;
)";
  std::vector<std::uint32_t> a, b, out;
  for (std::uint32_t l = 0; l < 16; ++l)
    a.push_back(l), b.push_back(100 + l), out.push_back(100 + 3 * l);
  const std::vector<std::string> params = {"a", "b", "out"};
  const std::string args = "a=buffer:64 b=buffer:64 out=buffer:64";  // 16 lanes: shown in full
  const std::string state =
      final_out({write_ptx(ptx_entry("alt", body + "  ret;", params)), "alt", 16, args});
  CHECK(state == "a=" + u32_hex(a) + "\nb=" + u32_hex(b) + "\nout=" + u32_hex(out) + "\n");
  // After hits on a, the word just past a's end is in no buffer.
  const std::string past = body + "  ld.global.u32 %r7, [%rd4+64];\n  ret;";
  RunResult r = run_ptx(PtxLaunch{write_ptx(ptx_entry("alt", past, params)), "alt", 16, args});
  REQUIRE(r.verdict == Verdict::model_error);
  CHECK_THAT(r.bug->title, Catch::Contains("unmapped global address"));
}
