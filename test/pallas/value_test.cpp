// The Pallas interpreter's element values: integer dtypes wrap and indices
// saturate for every double, without the undefined float-to-integer casts
// that clang's UBSan (float-cast-overflow) caught under the fuzzer.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <limits>

#include "models/pallas/value.hpp"

using namespace heddle::pallas;

TEST_CASE("pallas values: integers wrap modulo 2^32 however large the double", "[pallas]") {
  CHECK(normalize(DType::i32, 7.9) == 7);
  CHECK(normalize(DType::i32, 2147483648.0) == -2147483648.0);
  CHECK(normalize(DType::i32, 1e20) == 1661992960.0);  // 1e20 mod 2^32, as the kernel's int32 wraps
  CHECK(normalize(DType::u8, -1.0) == 255);
  CHECK(normalize(DType::u32, 1e300) == 0);  // a multiple of 2^32
  CHECK(normalize(DType::i16, NAN) == 0);
  CHECK(normalize(DType::i32, INFINITY) == 0);
}

TEST_CASE("pallas values: int64 values and indices saturate at the int64 limits", "[pallas]") {
  constexpr auto max = std::numeric_limits<std::int64_t>::max();
  constexpr auto min = std::numeric_limits<std::int64_t>::min();
  CHECK(Value::scalar(DType::i64, 1e300).index() == max);
  CHECK(Value::scalar(DType::f32, -1e30).index() == min);
  CHECK(Value::scalar(DType::f32, NAN).index() == 0);
  CHECK(to_int64(-3.7) == -3);
  CHECK(Value::scalar(DType::i64, 1e300).text() == "9223372036854775807");
}

TEST_CASE("pallas values: bfloat16 rounds float32 to nearest, ties to even", "[pallas]") {
  // Expected bits from ml_dtypes (np.float32(v).astype(bfloat16)).
  CHECK(bf16_bits(1.00390625f) == 0x3f80);   // halfway between 1 and 1+2^-7: even (down)
  CHECK(bf16_bits(1.01171875f) == 0x3f82);   // halfway between 1+2^-7 and 1+2^-6: even (up)
  CHECK(bf16_bits(-1.00390625f) == 0xbf80);
  CHECK(bf16_bits(3.0e38f) == 0x7f62);
  CHECK(bf16_bits(3.3961776e38f) == 0x7f80);  // rounds past the largest bf16: inf
  CHECK(bf16_bits(1e-40f) == 0x0001);         // a float32 subnormal to the smallest bf16 one
  CHECK(std::isnan(bf16_value(bf16_bits(NAN))));
  CHECK(normalize(DType::bf16, 1.01171875) == 1.015625);
  CHECK(dtype_size(DType::bf16) == 2);
  std::byte mem[2];
  store_element(DType::bf16, mem, 1.00390625);
  CHECK(load_element(DType::bf16, mem) == 1.0);
}
