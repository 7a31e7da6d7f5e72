// Array values of the interpreted jaxpr: a dtype, a shape and the elements.
// Elements are held as doubles: every int32/uint32/bool value is exact in a
// double, and each integer operation wraps its result to the dtype, so the
// arithmetic is the kernel's. Floats are rounded to float32 after each op.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace heddle::pallas {

/// Element types the interpreter computes with.
enum class DType { i32, u32, i8, i16, u8, u16, boolean, f32, i64, bf16 };

/// Parses a JAX dtype name ("int32", "float32", "bool", ...); nullopt-like: throws.
DType parse_dtype(const std::string& name);
/// The JAX name of a dtype.
const char* dtype_name(DType d);
/// Bytes per element as stored in kernel memory.
std::size_t dtype_size(DType d);
/// True for float dtypes.
bool is_float(DType d);
/// Wraps or rounds `x` to what `d` can hold (int32 wraps, bool is 0/1;
/// NaN and infinities become 0 in the integer dtypes; bf16 rounds to nearest even).
double normalize(DType d, double x);
/// `x` truncated to a 64-bit integer, saturating at its limits (NaN: 0):
/// a plain cast of a double outside the range is undefined behaviour.
std::int64_t to_int64(double x);

/// The bfloat16 bits of float `f`, rounded to nearest, ties to even (NaN stays a quiet NaN).
std::uint16_t bf16_bits(float f);
/// The float whose upper half is bfloat16 `bits` (exact).
float bf16_value(std::uint16_t bits);

using Shape = std::vector<std::int64_t>;
/// Number of elements of a shape.
std::int64_t num_elements(const Shape& s);

/// One array value: dtype, shape and the elements in row-major order.
struct Value {
  DType dtype = DType::i32;
  Shape shape;
  std::vector<double> data;

  /// A scalar of `d`.
  static Value scalar(DType d, double x);
  /// An array of `shape` filled with `x`.
  static Value filled(DType d, Shape shape, double x);
  /// The single element of a scalar (or one-element) value.
  double item() const;
  /// The element as a 64-bit integer (for indices and device ids).
  std::int64_t index() const { return to_int64(item()); }
  /// "[1, 2, 3]" or "7": for reports.
  std::string text() const;
};

/// Loads elements from kernel memory bytes.
double load_element(DType d, const std::byte* p);
/// Stores an element into kernel memory bytes.
void store_element(DType d, std::byte* p, double x);

}  // namespace heddle::pallas
