#include "models/pallas/value.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>

namespace heddle::pallas {
namespace {
struct DTypeInfo {
  DType d;
  const char* name;
  std::size_t size;
};
constexpr DTypeInfo kTypes[] = {
    {DType::i32, "int32", 4},   {DType::u32, "uint32", 4}, {DType::i8, "int8", 1},
    {DType::i16, "int16", 2},   {DType::u8, "uint8", 1},   {DType::u16, "uint16", 2},
    {DType::boolean, "bool", 1}, {DType::f32, "float32", 4}, {DType::i64, "int64", 8},
    {DType::bf16, "bfloat16", 2},
};

// Two's-complement wrap to T (at most 32 bits): the remainder modulo 2^32
// is exact in a double and keeps T's bits, so huge values wrap as the
// kernel's integers do instead of overflowing the cast.
template <class T>
double wrap(double x) {
  static_assert(sizeof(T) <= 4);
  if (!std::isfinite(x)) return 0;
  auto v = static_cast<std::int64_t>(std::fmod(std::trunc(x), 4294967296.0));
  return static_cast<double>(static_cast<T>(static_cast<std::uint64_t>(v)));
}

template <class T>
T read_as(const std::byte* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

template <class T>
void write_as(std::byte* p, T v) {
  std::memcpy(p, &v, sizeof v);
}
}  // namespace

DType parse_dtype(const std::string& name) {
  for (const auto& t : kTypes)
    if (name == t.name) return t.d;
  throw std::invalid_argument(
      fmt::format("dtype {} is not supported (int8..int64, uint8..uint32, bool, float32, bfloat16)", name));
}

const char* dtype_name(DType d) {
  for (const auto& t : kTypes)
    if (t.d == d) return t.name;
  return "?";
}

std::size_t dtype_size(DType d) {
  for (const auto& t : kTypes)
    if (t.d == d) return t.size;
  return 4;
}

bool is_float(DType d) { return d == DType::f32 || d == DType::bf16; }

// Round to nearest even on the 16 bits dropped: add 0x7fff plus the lowest
// kept bit, then truncate (the rule of ml_dtypes and XLA's f32->bf16
// convert). Carries into the exponent round up to the next binade or to inf.
std::uint16_t bf16_bits(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  if (std::isnan(f)) return static_cast<std::uint16_t>((u >> 16) | 0x40);  // quiet, sign kept
  u += 0x7fff + ((u >> 16) & 1);
  return static_cast<std::uint16_t>(u >> 16);
}

float bf16_value(std::uint16_t bits) {
  std::uint32_t u = static_cast<std::uint32_t>(bits) << 16;
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

double normalize(DType d, double x) {
  switch (d) {
    case DType::i32: return wrap<std::int32_t>(x);
    case DType::u32: return wrap<std::uint32_t>(x);
    case DType::i8: return wrap<std::int8_t>(x);
    case DType::i16: return wrap<std::int16_t>(x);
    case DType::u8: return wrap<std::uint8_t>(x);
    case DType::u16: return wrap<std::uint16_t>(x);
    case DType::i64: return static_cast<double>(to_int64(x));
    case DType::boolean: return x != 0 ? 1 : 0;
    case DType::f32: return static_cast<double>(static_cast<float>(x));
    case DType::bf16: return bf16_value(bf16_bits(static_cast<float>(x)));
  }
  return x;
}

std::int64_t to_int64(double x) {
  constexpr double kLimit = 9223372036854775808.0;  // 2^63
  if (std::isnan(x)) return 0;
  if (x >= kLimit) return std::numeric_limits<std::int64_t>::max();
  if (x < -kLimit) return std::numeric_limits<std::int64_t>::min();
  return static_cast<std::int64_t>(x);
}

std::int64_t num_elements(const Shape& s) {
  std::int64_t n = 1;
  for (auto d : s) n *= d;
  return n;
}

Value Value::scalar(DType d, double x) { return Value{d, {}, {normalize(d, x)}}; }

Value Value::filled(DType d, Shape shape, double x) {
  auto n = static_cast<std::size_t>(num_elements(shape));
  return Value{d, std::move(shape), std::vector<double>(n, normalize(d, x))};
}

double Value::item() const {
  if (data.size() != 1)
    throw std::invalid_argument(fmt::format("expected a scalar, got {} elements", data.size()));
  return data[0];
}

std::string Value::text() const {
  auto one = [&](double x) {
    if (dtype == DType::boolean) return std::string(x != 0 ? "true" : "false");
    if (is_float(dtype)) return fmt::format("{}", x);
    return fmt::format("{}", to_int64(x));
  };
  if (shape.empty() && data.size() == 1) return one(data[0]);
  std::string s = "[";
  for (std::size_t i = 0; i < data.size(); ++i) s += (i ? ", " : "") + one(data[i]);
  return s + "]";
}

double load_element(DType d, const std::byte* p) {
  switch (d) {
    case DType::i32: return read_as<std::int32_t>(p);
    case DType::u32: return read_as<std::uint32_t>(p);
    case DType::i8: return read_as<std::int8_t>(p);
    case DType::i16: return read_as<std::int16_t>(p);
    case DType::u8: return read_as<std::uint8_t>(p);
    case DType::u16: return read_as<std::uint16_t>(p);
    case DType::i64: return static_cast<double>(read_as<std::int64_t>(p));
    case DType::boolean: return read_as<std::uint8_t>(p) != 0 ? 1 : 0;
    case DType::f32: return read_as<float>(p);
    case DType::bf16: return bf16_value(read_as<std::uint16_t>(p));
  }
  return 0;
}

void store_element(DType d, std::byte* p, double x) {
  x = normalize(d, x);
  switch (d) {
    case DType::i32: return write_as(p, static_cast<std::int32_t>(x));
    case DType::u32: return write_as(p, static_cast<std::uint32_t>(x));
    case DType::i8: return write_as(p, static_cast<std::int8_t>(x));
    case DType::i16: return write_as(p, static_cast<std::int16_t>(x));
    case DType::u8: return write_as(p, static_cast<std::uint8_t>(x));
    case DType::u16: return write_as(p, static_cast<std::uint16_t>(x));
    case DType::i64: return write_as(p, to_int64(x));
    case DType::boolean: return write_as(p, static_cast<std::uint8_t>(x != 0));
    case DType::f32: return write_as(p, static_cast<float>(x));
    case DType::bf16: return write_as(p, bf16_bits(static_cast<float>(x)));
  }
}

}  // namespace heddle::pallas
