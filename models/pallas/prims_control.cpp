// Control flow: cond, while, scan, and calls (pjit, closed_call), each
// evaluated on the same thread with the sub-jaxprs the exporter kept.
#include <fmt/format.h>

#include "checker/engine/errors.hpp"
#include "models/pallas/interp.hpp"

namespace heddle::pallas {
namespace {

std::vector<Slot> slice_of(const std::vector<Slot>& v, std::size_t first, std::size_t n) {
  return {v.begin() + static_cast<std::ptrdiff_t>(first),
          v.begin() + static_cast<std::ptrdiff_t>(first + n)};
}

std::vector<Slot> cond(Interp& in, const Eqn& e, std::vector<Slot>& a) {
  auto branches = e.subs.count("branches") ? e.subs.at("branches").size() : 0;
  if (branches == 0) throw ModelError("cond without branches in the export", e.loc);
  auto k = as_value(a.at(0), e).index();
  auto i = static_cast<std::size_t>(std::clamp<std::int64_t>(k, 0, static_cast<std::int64_t>(branches) - 1));
  return in.eval(e.sub("branches", i), slice_of(a, 1, a.size() - 1));
}

std::vector<Slot> while_loop(Interp& in, const Eqn& e, std::vector<Slot>& a) {
  auto nc = integer<std::size_t>(e.params.at("cond_nconsts"));
  auto nb = integer<std::size_t>(e.params.at("body_nconsts"));
  auto cond_consts = slice_of(a, 0, nc);
  auto body_consts = slice_of(a, nc, nb);
  auto carry = slice_of(a, nc + nb, a.size() - nc - nb);
  for (;;) {
    auto args = cond_consts;
    args.insert(args.end(), carry.begin(), carry.end());
    if (as_value(in.eval(e.sub("cond_jaxpr"), args).at(0), e).item() == 0) return carry;
    args = body_consts;
    args.insert(args.end(), carry.begin(), carry.end());
    carry = in.eval(e.sub("body_jaxpr"), args);
  }
}

// Row i of an array along its leading axis.
Value row(const Value& v, std::int64_t i) {
  Value r{v.dtype, Shape(v.shape.begin() + 1, v.shape.end()), {}};
  auto n = static_cast<std::size_t>(num_elements(r.shape));
  auto first = v.data.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(i) * n);
  r.data.assign(first, first + static_cast<std::ptrdiff_t>(n));
  return r;
}

std::vector<Slot> scan(Interp& in, const Eqn& e, std::vector<Slot>& a) {
  auto nconsts = integer<std::size_t>(e.params.at("num_consts"));
  auto ncarry = integer<std::size_t>(e.params.at("num_carry"));
  auto length = integer<std::int64_t>(e.params.at("length"));
  bool reverse = e.params.value("reverse", false);
  auto consts = slice_of(a, 0, nconsts);
  auto carry = slice_of(a, nconsts, ncarry);
  auto xs = slice_of(a, nconsts + ncarry, a.size() - nconsts - ncarry);
  std::vector<std::vector<Value>> ys;
  for (std::int64_t t = 0; t < length; ++t) {
    std::int64_t i = reverse ? length - 1 - t : t;
    auto args = consts;
    args.insert(args.end(), carry.begin(), carry.end());
    for (const auto& x : xs) args.emplace_back(row(as_value(x, e), i));
    auto out = in.eval(e.sub("jaxpr"), args);
    carry = slice_of(out, 0, ncarry);
    ys.emplace_back();
    for (std::size_t k = ncarry; k < out.size(); ++k) ys.back().push_back(as_value(out[k], e));
  }
  if (reverse) std::reverse(ys.begin(), ys.end());
  std::vector<Slot> result = carry;
  for (std::size_t k = ncarry; k < e.outs.size(); ++k) {
    Value stacked = Value::filled(parse_dtype(e.outs[k].aval.dtype), e.outs[k].aval.shape, 0);
    stacked.data.clear();
    for (const auto& y : ys) {
      const auto& v = y.at(k - ncarry);
      stacked.data.insert(stacked.data.end(), v.data.begin(), v.data.end());
    }
    result.emplace_back(std::move(stacked));
  }
  return result;
}

std::vector<Slot> call(const char* param, Interp& in, const Eqn& e, std::vector<Slot>& a) {
  return in.eval(e.sub(param), a);
}

const bool prims_control_registered = [] {
  register_primitive("cond", cond);
  register_primitive("while", while_loop);
  register_primitive("scan", scan);
  register_primitive("pjit", [](Interp& in, const Eqn& e, std::vector<Slot>& a) {
    return call("jaxpr", in, e, a);
  });
  register_primitive("jit", [](Interp& in, const Eqn& e, std::vector<Slot>& a) {
    return call("jaxpr", in, e, a);
  });
  register_primitive("closed_call", [](Interp& in, const Eqn& e, std::vector<Slot>& a) {
    return call("call_jaxpr", in, e, a);
  });
  return true;
}();
}  // namespace
}  // namespace heddle::pallas
