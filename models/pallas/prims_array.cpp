// Array primitives on small blocks: dot_general (the contraction of
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

std::vector<Slot> dot_general(Interp&, const Eqn& e, std::vector<Slot>& s) {
  const Value& a = as_value(s.at(0), e);
  const Value& b = as_value(s.at(1), e);
  const auto& dn = e.params.at("dimension_numbers");
  Dims ac = integers<std::size_t>(dn.at(0).at(0)), bc = integers<std::size_t>(dn.at(0).at(1));
  Dims ab = integers<std::size_t>(dn.at(1).at(0)), bb = integers<std::size_t>(dn.at(1).at(1));
  Dims af = free_dims(a.shape.size(), ac, ab), bf = free_dims(b.shape.size(), bc, bb);
  DType out = parse_dtype(e.outs.at(0).aval.dtype);
  Shape out_shape = e.outs.at(0).aval.shape;
  Shape k_shape;
  for (auto d : ac) k_shape.push_back(a.shape.at(d));
  Value r = Value::filled(out, out_shape, 0);
  for (std::int64_t o = 0; o < static_cast<std::int64_t>(r.data.size()); ++o) {
    auto oc = coords(o, out_shape);
    std::vector<std::int64_t> ai(a.shape.size()), bi(b.shape.size());
    std::size_t p = 0;
    for (std::size_t k = 0; k < ab.size(); ++k, ++p) ai[ab[k]] = bi[bb[k]] = oc[p];
    for (auto d : af) ai[d] = oc[p++];
    for (auto d : bf) bi[d] = oc[p++];
    double sum = 0;
    for (std::int64_t k = 0; k < num_elements(k_shape); ++k) {
      auto kc = coords(k, k_shape);
      for (std::size_t j = 0; j < ac.size(); ++j) ai[ac[j]] = bi[bc[j]] = kc[j];
      sum = normalize(out, sum + normalize(out, a.data[static_cast<std::size_t>(flat(ai, a.shape))] *
                                                    b.data[static_cast<std::size_t>(flat(bi, b.shape))]));
    }
    r.data[static_cast<std::size_t>(o)] = sum;
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

const bool prims_array_registered = [] {
  register_primitive("dot_general", dot_general);
  register_primitive("transpose", transpose);
  return true;
}();
}  // namespace
}  // namespace heddle::pallas
