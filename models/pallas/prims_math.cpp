// Elementwise and scalar math: integer arithmetic wraps to the dtype as XLA
// does (div truncates toward zero, rem takes the dividend's sign); float32
// arithmetic is rounded to float after each op. Transcendental float
// functions are not interpreted (an unsupported-primitive error at load).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "checker/engine/errors.hpp"
#include "models/pallas/interp.hpp"

namespace heddle::pallas {
namespace {
using Binary = double (*)(double, double, DType);
using Unary = double (*)(double, DType);

std::int64_t I(double x) { return to_int64(x); }
std::uint64_t U(double x) { return static_cast<std::uint64_t>(I(x)); }

double div_op(double a, double b, DType d) {
  if (is_float(d)) return a / b;
  if (I(b) == 0) throw std::invalid_argument("integer division by zero");
  return static_cast<double>(I(a) / I(b));
}

double rem_op(double a, double b, DType d) {
  if (is_float(d)) return std::fmod(a, b);
  if (I(b) == 0) throw std::invalid_argument("integer remainder by zero");
  return static_cast<double>(I(a) % I(b));
}

unsigned bits(DType d) { return static_cast<unsigned>(dtype_size(d) * 8); }

double shr_logical(double a, double b, DType d) {
  std::uint64_t mask = bits(d) == 64 ? ~0ULL : ((1ULL << bits(d)) - 1);
  return static_cast<double>((U(a) & mask) >> (U(b) % 64));
}

// The result shape of an n-ary elementwise lax op (jax/_src/lax/lax.py,
// broadcasting_shape_rule): scalars broadcast, the other operands have one
// rank and each dimension is equal across them or 1 (a size-1 dimension
// stretches: flash_attention's `s - m` with m of shape [128, 1]).
Shape broadcast_shape(const Value& a, const Value& b) {
  if (a.shape.empty()) return b.shape;
  if (b.shape.empty()) return a.shape;
  auto incompatible = [&] {
    return std::invalid_argument(fmt::format("operand shapes {} and {} do not broadcast",
                                             fmt::join(a.shape, "x"), fmt::join(b.shape, "x")));
  };
  if (a.shape.size() != b.shape.size()) throw incompatible();
  Shape out(a.shape.size());
  for (std::size_t d = 0; d < out.size(); ++d) {
    if (a.shape[d] != b.shape[d] && a.shape[d] != 1 && b.shape[d] != 1) throw incompatible();
    out[d] = a.shape[d] == 1 ? b.shape[d] : a.shape[d];
  }
  return out;
}

// Row-major strides of `v` read as `out`: 0 along the dimensions `v`
// stretches (size 1, or all of them for a scalar).
std::vector<std::int64_t> stretch_strides(const Value& v, const Shape& out) {
  std::vector<std::int64_t> st(out.size(), 0);
  if (v.shape.empty()) return st;
  std::int64_t s = 1;
  for (std::size_t d = out.size(); d-- > 0;) {
    st[d] = v.shape[d] == 1 ? 0 : s;
    s *= v.shape[d];
  }
  return st;
}

Value elementwise(const Value& a, const Value& b, DType out, DType in, Binary f) {
  Value r{out, broadcast_shape(a, b), {}};
  r.data.resize(static_cast<std::size_t>(num_elements(r.shape)));
  if (a.data.size() == r.data.size() && b.data.size() == r.data.size()) {  // no stretching
    for (std::size_t i = 0; i < r.data.size(); ++i) r.data[i] = normalize(out, f(a.data[i], b.data[i], in));
    return r;
  }
  const auto sa = stretch_strides(a, r.shape), sb = stretch_strides(b, r.shape);
  std::vector<std::int64_t> at(r.shape.size(), 0);  // the output coordinate, row-major odometer
  std::int64_t ia = 0, ib = 0;
  for (std::size_t i = 0; i < r.data.size(); ++i) {
    r.data[i] = normalize(out, f(a.data[static_cast<std::size_t>(ia)], b.data[static_cast<std::size_t>(ib)], in));
    for (std::size_t d = at.size(); d-- > 0;) {
      ia += sa[d], ib += sb[d];
      if (++at[d] < r.shape[d]) break;
      ia -= sa[d] * r.shape[d], ib -= sb[d] * r.shape[d], at[d] = 0;
    }
  }
  return r;
}

void binary(const char* name, Binary f, bool compare = false) {
  register_primitive(name, [f, compare](Interp&, const Eqn& e, std::vector<Slot>& s) {
    const Value& a = as_value(s.at(0), e);
    const Value& b = as_value(s.at(1), e);
    return std::vector<Slot>{elementwise(a, b, compare ? DType::boolean : a.dtype, a.dtype, f)};
  });
}

void unary(const char* name, Unary f) {
  register_primitive(name, [f](Interp&, const Eqn& e, std::vector<Slot>& s) {
    Value v = as_value(s.at(0), e);
    for (auto& x : v.data) x = normalize(v.dtype, f(x, v.dtype));
    return std::vector<Slot>{v};
  });
}

DType out_dtype(const Eqn& e) { return parse_dtype(e.outs.at(0).aval.dtype); }

std::vector<Slot> select_n(Interp&, const Eqn& e, std::vector<Slot>& s) {
  const Value& which = as_value(s.at(0), e);
  Value r = as_value(s.at(1), e);
  auto fits = [&](const Value& v) { return v.data.size() == 1 || v.data.size() == r.data.size(); };
  if (which.data.empty() || !fits(which))
    throw std::invalid_argument("select_n: the selector's shape differs from the cases'");
  for (std::size_t i = 0; i < r.data.size(); ++i) {
    std::int64_t k = to_int64(which.data[which.data.size() == 1 ? 0 : i]);
    if (k < 0 || static_cast<std::size_t>(k) + 1 >= s.size())
      throw std::invalid_argument("select_n: case out of range");
    const Value& c = as_value(s[static_cast<std::size_t>(k) + 1], e);
    if (!fits(c)) throw std::invalid_argument("select_n: the cases differ in shape");
    r.data[i] = c.data[c.data.size() == 1 ? 0 : i];
  }
  return {r};
}

std::vector<Slot> convert(Interp&, const Eqn& e, std::vector<Slot>& s) {
  Value v = as_value(s.at(0), e);
  DType to = out_dtype(e);
  for (auto& x : v.data) x = normalize(to, is_float(v.dtype) && !is_float(to) ? std::trunc(x) : x);
  v.dtype = to;
  return {v};
}

// broadcast_in_dim: operand dim i goes to output dim broadcast_dimensions[i].
std::vector<Slot> broadcast_in_dim(Interp&, const Eqn& e, std::vector<Slot>& s) {
  const Value& v = as_value(s.at(0), e);
  Shape shape = integers<std::int64_t>(e.params.at("shape"));
  auto dims = integers<std::size_t>(e.params.at("broadcast_dimensions"));
  Value r = Value::filled(v.dtype, shape, 0);
  auto out = dense_dims(shape);
  auto in = dense_dims(v.shape);
  for (std::int64_t flat = 0; flat < static_cast<std::int64_t>(r.data.size()); ++flat) {
    std::int64_t src = 0;
    for (std::size_t i = 0; i < dims.size(); ++i) {
      std::int64_t coord = (flat / out[dims[i]].stride) % out[dims[i]].size;
      src += (v.shape[i] == 1 ? 0 : coord) * in[i].stride;
    }
    r.data[static_cast<std::size_t>(flat)] = v.data[static_cast<std::size_t>(src)];
  }
  return {r};
}

std::vector<Slot> reshape_like_out(Interp&, const Eqn& e, std::vector<Slot>& s) {
  Value v = as_value(s.at(0), e);
  v.shape = e.outs.at(0).aval.shape;
  if (num_elements(v.shape) != static_cast<std::int64_t>(v.data.size()))
    throw std::invalid_argument("reshape changes the number of elements");
  return {v};
}

std::vector<Slot> iota(Interp&, const Eqn& e, std::vector<Slot>&) {
  Shape shape = integers<std::int64_t>(e.params.at("shape"));
  auto dim = integer<std::size_t>(e.params.at("dimension"));
  Value r = Value::filled(out_dtype(e), shape, 0);
  auto dd = dense_dims(shape);
  for (std::size_t i = 0; i < r.data.size(); ++i)
    r.data[i] = static_cast<double>((static_cast<std::int64_t>(i) / dd[dim].stride) % dd[dim].size);
  return {r};
}

// reduce_* over params.axes: the output keeps the other dimensions in order.
void reduction(const char* name, double init, Binary f) {
  register_primitive(name, [init, f](Interp&, const Eqn& e, std::vector<Slot>& s) {
    const Value& v = as_value(s.at(0), e);
    auto axes = integers<std::size_t>(e.params.at("axes"));
    Shape out_shape = e.outs.at(0).aval.shape;
    Value r = Value::filled(v.dtype, out_shape, 0);
    std::vector<bool> seen(r.data.size(), false);
    auto in = dense_dims(v.shape);
    auto out = dense_dims(out_shape);
    for (std::size_t flat = 0; flat < v.data.size(); ++flat) {
      std::int64_t dst = 0;
      std::size_t k = 0;
      for (std::size_t d = 0; d < v.shape.size(); ++d) {
        if (std::find(axes.begin(), axes.end(), d) != axes.end()) continue;
        std::int64_t coord = (static_cast<std::int64_t>(flat) / in[d].stride) % in[d].size;
        dst += coord * out[k++].stride;
      }
      auto di = static_cast<std::size_t>(dst);
      r.data[di] = normalize(v.dtype, seen[di] ? f(r.data[di], v.data[flat], v.dtype) : v.data[flat]);
      seen[di] = true;
    }
    for (std::size_t i = 0; i < r.data.size(); ++i)
      if (!seen[i]) r.data[i] = normalize(v.dtype, init);
    return std::vector<Slot>{r};
  });
}

const bool prims_math_registered = [] {
  binary("add", [](double a, double b, DType) { return a + b; });
  binary("sub", [](double a, double b, DType) { return a - b; });
  binary("mul", [](double a, double b, DType d) {
    return is_float(d) ? a * b : static_cast<double>(static_cast<std::int64_t>(U(a) * U(b)));
  });
  binary("div", div_op);
  binary("rem", rem_op);
  binary("max", [](double a, double b, DType) { return std::max(a, b); });
  binary("min", [](double a, double b, DType) { return std::min(a, b); });
  binary("and", [](double a, double b, DType) { return static_cast<double>(I(a) & I(b)); });
  binary("or", [](double a, double b, DType) { return static_cast<double>(I(a) | I(b)); });
  binary("xor", [](double a, double b, DType) { return static_cast<double>(I(a) ^ I(b)); });
  binary("shift_left", [](double a, double b, DType) { return static_cast<double>(I(a) << (U(b) % 64)); });
  binary("shift_right_arithmetic", [](double a, double b, DType) { return static_cast<double>(I(a) >> (U(b) % 64)); });
  binary("shift_right_logical", shr_logical);
  binary("eq", [](double a, double b, DType) { return a == b ? 1.0 : 0.0; }, true);
  binary("ne", [](double a, double b, DType) { return a != b ? 1.0 : 0.0; }, true);
  binary("lt", [](double a, double b, DType) { return a < b ? 1.0 : 0.0; }, true);
  binary("le", [](double a, double b, DType) { return a <= b ? 1.0 : 0.0; }, true);
  binary("gt", [](double a, double b, DType) { return a > b ? 1.0 : 0.0; }, true);
  binary("ge", [](double a, double b, DType) { return a >= b ? 1.0 : 0.0; }, true);
  unary("neg", [](double a, DType) { return -a; });
  unary("abs", [](double a, DType) { return std::fabs(a); });
  unary("sign", [](double a, DType) { return static_cast<double>((a > 0) - (a < 0)); });
  unary("not", [](double a, DType d) { return d == DType::boolean ? (a != 0 ? 0.0 : 1.0) : static_cast<double>(~I(a)); });
  unary("copy", [](double a, DType) { return a; });
  unary("copy_p", [](double a, DType) { return a; });
  unary("floor", [](double a, DType) { return std::floor(a); });
  unary("ceil", [](double a, DType) { return std::ceil(a); });
  // Transcendentals: the C library's double result rounded to float32 (XLA's
  // own approximations may differ in the last place: compare with care).
  unary("exp", [](double a, DType) { return std::exp(a); });
  unary("exp2", [](double a, DType) { return std::exp2(a); });
  unary("log", [](double a, DType) { return std::log(a); });
  unary("log1p", [](double a, DType) { return std::log1p(a); });
  unary("expm1", [](double a, DType) { return std::expm1(a); });
  unary("tanh", [](double a, DType) { return std::tanh(a); });
  unary("logistic", [](double a, DType) { return 1 / (1 + std::exp(-a)); });
  unary("sqrt", [](double a, DType) { return std::sqrt(a); });
  unary("rsqrt", [](double a, DType) { return 1 / std::sqrt(a); });
  unary("sin", [](double a, DType) { return std::sin(a); });
  unary("cos", [](double a, DType) { return std::cos(a); });
  unary("erf", [](double a, DType) { return std::erf(a); });
  binary("pow", [](double a, double b, DType) { return std::pow(a, b); });
  register_primitive("integer_pow", [](Interp&, const Eqn& e, std::vector<Slot>& s) {
    Value v = as_value(s.at(0), e);
    int y = integer<int>(e.params.at("y"));
    for (auto& x : v.data) {
      double r = 1;
      for (int i = 0; i < y; ++i) r = normalize(v.dtype, r * x);
      x = r;
    }
    return std::vector<Slot>{v};
  });
  // lax.clamp(lo, x, hi): lo and hi are scalars or of x's shape.
  register_primitive("clamp", [](Interp&, const Eqn& e, std::vector<Slot>& s) {
    const Value& x = as_value(s.at(1), e);
    auto lo = [](double a, double b, DType) { return std::max(a, b); };
    auto hi = [](double a, double b, DType) { return std::min(a, b); };
    Value r = elementwise(x, as_value(s.at(0), e), x.dtype, x.dtype, lo);
    return std::vector<Slot>{elementwise(r, as_value(s.at(2), e), x.dtype, x.dtype, hi)};
  });
  register_primitive("select_n", select_n);
  register_primitive("convert_element_type", convert);
  register_primitive("broadcast_in_dim", broadcast_in_dim);
  register_primitive("reshape", reshape_like_out);
  register_primitive("squeeze", reshape_like_out);
  register_primitive("expand_dims", reshape_like_out);
  register_primitive("iota", iota);
  reduction("reduce_sum", 0, [](double a, double b, DType) { return a + b; });
  reduction("reduce_max", -INFINITY, [](double a, double b, DType) { return std::max(a, b); });
  reduction("reduce_min", INFINITY, [](double a, double b, DType) { return std::min(a, b); });
  return true;
}();
}  // namespace
}  // namespace heddle::pallas
