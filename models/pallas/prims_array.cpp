// Array primitives: slice, dot_general (the contraction of
// jnp.dot / lax.dot_general, batch dimensions first in the output, then the
// free dimensions of lhs, then those of rhs, as XLA defines it) and transpose.
#include <fmt/format.h>

#include <algorithm>

#include "checker/engine/errors.hpp"
#include "models/pallas/interp.hpp"

namespace heddle::pallas {
namespace {
using Dims = std::vector<std::size_t>;

// Coordinates of flat index i in a row-major array of `shape`.
std::vector<std::int64_t> coords(std::int64_t i, const Shape& shape) {
  std::vector<std::int64_t> c(shape.size());
  for (std::size_t d = shape.size(); d-- > 0;) {
    c[d] = i % shape[d];
    i /= shape[d];
  }
  return c;
}

std::int64_t flat(const std::vector<std::int64_t>& c, const Shape& shape) {
  std::int64_t i = 0;
  for (std::size_t d = 0; d < shape.size(); ++d) i = i * shape[d] + c[d];
  return i;
}

Dims free_dims(std::size_t rank, const Dims& contract, const Dims& batch) {
  Dims out;
  for (std::size_t d = 0; d < rank; ++d)
    if (std::find(contract.begin(), contract.end(), d) == contract.end() &&
        std::find(batch.begin(), batch.end(), d) == batch.end())
      out.push_back(d);
  return out;
}

// Row-major strides of `shape`, in elements.
std::vector<std::int64_t> strides_of(const Shape& shape) {
  std::vector<std::int64_t> st(shape.size(), 1);
  for (std::size_t d = shape.size(); d-- > 1;) st[d - 1] = st[d] * shape[d];
  return st;
}

// The flat offsets, in `a` and in `b`, of every point of the dimensions
// (da[i] of a paired with db[i] of b) of sizes `sizes`, row-major.
std::vector<std::pair<std::int64_t, std::int64_t>> offsets(const Shape& sizes, const Dims& da,
                                                           const std::vector<std::int64_t>& sa,
                                                           const Dims& db,
                                                           const std::vector<std::int64_t>& sb) {
  std::vector<std::pair<std::int64_t, std::int64_t>> out{{0, 0}};
  for (std::size_t k = 0; k < sizes.size(); ++k) {
    std::vector<std::pair<std::int64_t, std::int64_t>> next;
    next.reserve(out.size() * static_cast<std::size_t>(sizes[k]));
    for (const auto& [oa, ob] : out)
      for (std::int64_t i = 0; i < sizes[k]; ++i)
        next.emplace_back(oa + (k < da.size() ? i * sa[da[k]] : 0),
                          ob + (k < db.size() ? i * sb[db[k]] : 0));
    out = std::move(next);
  }
  return out;
}

// Each product and each partial sum is rounded to the accumulation dtype, in
// the order of the contracting dimensions (row-major): the kernel's
// arithmetic, one element at a time. The offsets are computed once, so the
// work is the multiply-adds (a 128x128x128 block is ~2M of them).
std::vector<Slot> dot_general(Interp&, const Eqn& e, std::vector<Slot>& s) {
  const Value& a = as_value(s.at(0), e);
  const Value& b = as_value(s.at(1), e);
  const auto& dn = e.params.at("dimension_numbers");
  Dims ac = integers<std::size_t>(dn.at(0).at(0)), bc = integers<std::size_t>(dn.at(0).at(1));
  Dims ab = integers<std::size_t>(dn.at(1).at(0)), bb = integers<std::size_t>(dn.at(1).at(1));
  Dims af = free_dims(a.shape.size(), ac, ab), bf = free_dims(b.shape.size(), bc, bb);
  DType out = parse_dtype(e.outs.at(0).aval.dtype);
  // A bf16 product accumulates in f32 and is rounded once at the end, as
  // XLA's CPU dot (which Pallas interpret mode runs) upcasts bf16 dots.
  const DType acc = out == DType::bf16 ? DType::f32 : out;
  const auto sa = strides_of(a.shape), sb = strides_of(b.shape);
  Shape k_shape, batch, free_a, free_b;
  for (auto d : ac) k_shape.push_back(a.shape.at(d));
  for (auto d : ab) batch.push_back(a.shape.at(d));
  for (auto d : af) free_a.push_back(a.shape.at(d));
  for (auto d : bf) free_b.push_back(b.shape.at(d));
  const auto ks = offsets(k_shape, ac, sa, bc, sb);
  const auto bs = offsets(batch, ab, sa, bb, sb);
  const auto fa = offsets(free_a, af, sa, {}, sb);
  const auto fb = offsets(free_b, {}, sa, bf, sb);
  Value r = Value::filled(out, e.outs.at(0).aval.shape, 0);
  if (r.data.size() != bs.size() * fa.size() * fb.size())
    throw ModelError("dot_general: the output shape does not match the operands", e.loc);
  std::size_t o = 0;
  for (const auto& batch_at : bs)
    for (const auto& i : fa)
      for (const auto& j : fb) {
        const double* pa = a.data.data() + batch_at.first + i.first;
        const double* pb = b.data.data() + batch_at.second + j.second;
        double sum = 0;
        for (const auto& [ka, kb] : ks) sum = normalize(acc, sum + normalize(acc, pa[ka] * pb[kb]));
        r.data[o++] = normalize(out, sum);
      }
  return {r};
}

std::vector<Slot> transpose(Interp&, const Eqn& e, std::vector<Slot>& s) {
  const Value& v = as_value(s.at(0), e);
  auto perm = integers<std::size_t>(e.params.at("permutation"));
  Shape out_shape;
  for (auto d : perm) out_shape.push_back(v.shape.at(d));
  Value r = Value::filled(v.dtype, out_shape, 0);
  for (std::int64_t o = 0; o < static_cast<std::int64_t>(r.data.size()); ++o) {
    auto oc = coords(o, out_shape);
    std::vector<std::int64_t> ic(v.shape.size());
    for (std::size_t d = 0; d < perm.size(); ++d) ic[perm[d]] = oc[d];
    r.data[static_cast<std::size_t>(o)] = v.data[static_cast<std::size_t>(flat(ic, v.shape))];
  }
  return {r};
}

// lax.slice: elements start + i * stride below limit in each dimension.
std::vector<Slot> slice(Interp&, const Eqn& e, std::vector<Slot>& s) {
  const Value& v = as_value(s.at(0), e);
  auto start = integers<std::int64_t>(e.params.at("start_indices"));
  auto limit = integers<std::int64_t>(e.params.at("limit_indices"));
  std::vector<std::int64_t> step(v.shape.size(), 1);
  if (e.params.contains("strides") && !e.params.at("strides").is_null())
    step = integers<std::int64_t>(e.params.at("strides"));
  Shape out_shape;
  for (std::size_t d = 0; d < v.shape.size(); ++d) {
    if (d >= start.size() || d >= limit.size() || d >= step.size() || step[d] < 1 ||
        start[d] < 0 || limit[d] > v.shape[d] || start[d] > limit[d])
      throw ModelError(fmt::format("slice: dimension {} is out of range", d), e.loc);
    out_shape.push_back((limit[d] - start[d] + step[d] - 1) / step[d]);
  }
  Value r = Value::filled(v.dtype, out_shape, 0);
  for (std::int64_t o = 0; o < static_cast<std::int64_t>(r.data.size()); ++o) {
    auto c = coords(o, out_shape);
    for (std::size_t d = 0; d < c.size(); ++d) c[d] = start[d] + c[d] * step[d];
    r.data[static_cast<std::size_t>(o)] = v.data[static_cast<std::size_t>(flat(c, v.shape))];
  }
  return {r};
}

// pltpu.repeat(x, repeats, axis): x tiled `repeats` times along `axis`
// (jax/_src/pallas/mosaic/primitives.py, repeat_impl is jnp.tile).
std::vector<Slot> repeat(Interp&, const Eqn& e, std::vector<Slot>& s) {
  const Value& v = as_value(s.at(0), e);
  const auto axis = integer<std::size_t>(e.params.at("axis"));
  const auto times = integer<std::int64_t>(e.params.at("repeats"));
  if (axis >= v.shape.size() || times < 1)
    throw ModelError(fmt::format("repeat: axis {} of rank {} repeated {} times", axis,
                                 v.shape.size(), times), e.loc);
  Shape out_shape = v.shape;
  out_shape[axis] *= times;
  Value r = Value::filled(v.dtype, out_shape, 0);
  for (std::int64_t o = 0; o < static_cast<std::int64_t>(r.data.size()); ++o) {
    auto c = coords(o, out_shape);
    c[axis] %= v.shape[axis];
    r.data[static_cast<std::size_t>(o)] = v.data[static_cast<std::size_t>(flat(c, v.shape))];
  }
  return {r};
}

const bool prims_array_registered = [] {
  register_primitive("repeat", repeat);
  register_primitive("slice", slice);
  register_primitive("dot_general", dot_general);
  register_primitive("transpose", transpose);
  return true;
}();
}  // namespace
}  // namespace heddle::pallas
