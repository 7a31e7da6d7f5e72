// Ref primitives: get, swap, addupdate with NDIndexer views. Each contiguous
// run of elements is one race-checked access of the running kernel thread.
#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "checker/engine/errors.hpp"
#include "models/pallas/interp.hpp"

namespace heddle::pallas {
namespace {
using nlohmann::json;

std::int64_t int_of(Interp& in, const json& j, const Eqn& e) {
  return as_value(in.param_atom(j, e), e).index();
}

// One indexer (pl.ds slices and integer indices, dimension by dimension).
RefBinding apply_one(Interp& in, const RefBinding& ref, const json& indexer, const Eqn& e,
                     std::string* clipped) {
  RefBinding out = ref;
  out.dims.clear();
  std::size_t d = 0;
  for (const auto& entry : indexer) {
    if (d >= ref.dims.size())
      throw ModelError(fmt::format("{}: more indices than {} has dimensions", e.prim, ref.name), e.loc);
    const Dim& dim = ref.dims[d++];
    if (entry.is_object() && entry.contains("slice")) {
      const auto& s = entry.at("slice");
      std::int64_t start = s.at("start").is_null() ? 0 : int_of(in, s.at("start"), e);
      std::int64_t size = int_of(in, s.at("size"), e);
      std::int64_t stride = integer_or<std::int64_t>(s, "stride", 1);
      const bool outside = start < 0 || size < 0 || (size > 0 && start + (size - 1) * stride >= dim.size);
      if (outside && clipped && stride > 0 && size >= 0) {  // keep the in-bounds part, say what was cut
        *clipped += fmt::format("{}{}[{}:{}] on dimension {} of size {}", clipped->empty() ? "" : "; ",
                                ref.name, start, start + size * stride, d - 1, dim.size);
        const std::int64_t lo = std::clamp<std::int64_t>(start, 0, dim.size);
        const std::int64_t first = start + (lo - start + stride - 1) / stride * stride;
        const std::int64_t hi = std::min(start + size * stride, dim.size);
        start = std::min(first, dim.size);
        size = hi > start ? (hi - start + stride - 1) / stride : 0;
      } else if (outside) {
        throw ModelError(fmt::format("{}: slice {}:{} is outside dimension {} of {} (size {})",
                                     e.prim, start, start + size * stride, d - 1, ref.name, dim.size),
                         e.loc);
      }
      out.offset += start * dim.stride;
      out.dims.push_back(Dim{size, dim.stride * stride});
      continue;
    }
    const Slot held = in.param_atom(entry, e);
    const Value& v = as_value(held, e);
    if (!v.shape.empty())
      throw ModelError(fmt::format("{}: indexing {} with an array (a gather) is not supported",
                                   e.prim, ref.name), e.loc);
    std::int64_t i = v.index();
    if (i < 0 || i >= dim.size)
      throw ModelError(fmt::format("{}: index {} is outside dimension {} of {} (size {})", e.prim,
                                   i, d - 1, ref.name, dim.size), e.loc);
    out.offset += i * dim.stride;
  }
  for (; d < ref.dims.size(); ++d) out.dims.push_back(ref.dims[d]);
  return out;
}

// ref.reshape(...) (a RefReshaper transform): the same elements, row-major,
// seen with a new shape; the view must be contiguous and keep its dtype.
RefBinding reshape_view(const RefBinding& r, const json& t, const Eqn& e) {
  Shape shape = integers<std::int64_t>(t.at("shape"));
  auto elems = r.elements();
  bool dense = static_cast<std::int64_t>(elems.size()) == num_elements(shape);
  for (std::size_t i = 1; i < elems.size() && dense; ++i) dense = elems[i] == elems[i - 1] + 1;
  if (!dense || t.value("dtype", dtype_name(r.dtype)) != dtype_name(r.dtype))
    throw ModelError(fmt::format("{}: reshaping {} to {} elements of {} is not supported (a "
                                 "contiguous view of the same dtype is)", e.prim, r.name,
                                 num_elements(shape), t.value("dtype", "?")), e.loc);
  RefBinding out = r;
  out.offset = elems.empty() ? r.offset : elems[0];
  out.dims = dense_dims(shape);
  return out;
}

// Calls fn(first, n) for each maximal contiguous run of the view's elements.
template <class F>
void for_runs(const std::vector<std::int64_t>& elems, F fn) {
  std::size_t i = 0;
  while (i < elems.size()) {
    std::size_t j = i + 1;
    while (j < elems.size() && elems[j] == elems[j - 1] + 1) ++j;
    fn(static_cast<std::size_t>(elems[i]), j - i);
    i = j;
  }
}

Region& here_region(Interp& in, const RefBinding& r, const Eqn& e) {
  if (r.kind != RefBinding::Kind::memory)
    throw ModelError(fmt::format("{}: {} is a semaphore, not memory", e.prim, r.name), e.loc);
  return region_here(in.context(), r);
}

Value read_view(Interp& in, const RefBinding& r, const Eqn& e, const char* op) {
  Region& reg = here_region(in, r, e);
  auto elems = r.elements();
  for_runs(elems, [&](std::size_t first, std::size_t n) {
    reg.check_bounds(first, n, e.loc);
    reg.access(first, n, false, Proxy::generic, op, e.loc);
  });
  Value v{r.dtype, r.shape(), {}};
  const std::size_t es = dtype_size(r.dtype);
  for (auto i : elems) v.data.push_back(load_element(r.dtype, reg.bytes() + i * es));
  return v;
}

void write_view(Interp& in, const RefBinding& r, const Value& v, const Eqn& e, const char* op) {
  Region& reg = here_region(in, r, e);
  auto elems = r.elements();
  if (v.data.size() != elems.size() && v.data.size() != 1)
    throw ModelError(fmt::format("{}: storing {} elements into a view of {} of {}", e.prim,
                                 v.data.size(), r.name, elems.size()), e.loc);
  for_runs(elems, [&](std::size_t first, std::size_t n) {
    reg.check_bounds(first, n, e.loc);
    reg.access(first, n, true, Proxy::generic, op, e.loc);
  });
  const std::size_t es = dtype_size(r.dtype);
  for (std::size_t k = 0; k < elems.size(); ++k)
    store_element(r.dtype, reg.bytes() + elems[k] * es, v.data.size() == 1 ? v.data[0] : v.data[k]);
}

const json& transforms_of(const Eqn& e) {
  static const json none = json::array();
  auto it = e.params.find("tree");
  return it == e.params.end() || it->is_null() ? none : *it;
}

// A masked access reads or writes (and race-checks) only the elements of
// view `r` where `mask` (nullptr: all) is true; the mask is a scalar or of r's shape.
void check_mask(const RefBinding& r, const Value* mask, const Eqn& e) {
  if (mask && mask->data.size() != 1 && static_cast<std::int64_t>(mask->data.size()) != num_elements(r.shape()))
    throw ModelError(fmt::format("{}: the mask's shape differs from the view of {}", e.prim, r.name), e.loc);
}

bool masked_in(const Value* mask, std::size_t k) {
  return !mask || mask->data[mask->data.size() == 1 ? 0 : k] != 0;
}

// pl.store / pltpu.store with mask= (primitive masked_swap, args_tree = [ref,
// transforms, val, mask]): writes val where the mask is true, and returns
// the old values there (val elsewhere, as Pallas's discharge rule does).
std::vector<Slot> masked_swap(Interp& in, const Eqn& e, std::vector<Slot>&) {
  const json& t = e.params.at("args_tree");
  const RefBinding ref = as_ref(in.param_atom(t.at(0), e), e);
  auto view = apply_indexers(in, ref, t.at(1), e);
  Slot held_val = in.param_atom(t.at(2), e);
  const Value& val = as_value(held_val, e);
  std::optional<Slot> held_mask;
  if (!t.at(3).is_null()) held_mask = in.param_atom(t.at(3), e);
  const Value* mask = held_mask ? &as_value(*held_mask, e) : nullptr;
  check_mask(view, mask, e);
  Region& reg = here_region(in, view, e);
  auto elems = view.elements();
  if (val.data.size() != 1 && val.data.size() != elems.size())
    throw ModelError(fmt::format("{}: storing {} elements into a view of {} of {}", e.prim,
                                 val.data.size(), view.name, elems.size()), e.loc);
  Value old{view.dtype, view.shape(), {}};
  const std::size_t es = dtype_size(view.dtype);
  for (std::size_t k = 0; k < elems.size(); ++k) {
    const double v = val.data[val.data.size() == 1 ? 0 : k];
    if (!masked_in(mask, k)) {
      old.data.push_back(v);
      continue;
    }
    const auto i = static_cast<std::size_t>(elems[k]);
    reg.check_bounds(i, 1, e.loc);
    reg.access(i, 1, true, Proxy::generic, "masked_swap", e.loc);
    old.data.push_back(load_element(view.dtype, reg.bytes() + i * es));
    store_element(view.dtype, reg.bytes() + i * es, v);
  }
  return {old};
}

// pl.load with mask= (masked_load, args_tree = [ref, transforms, mask,
// other]): reads where the mask is true, `other` (else 0) elsewhere.
std::vector<Slot> masked_load(Interp& in, const Eqn& e, std::vector<Slot>&) {
  const json& t = e.params.at("args_tree");
  const RefBinding ref = as_ref(in.param_atom(t.at(0), e), e);
  auto view = apply_indexers(in, ref, t.at(1), e);
  std::optional<Slot> held_mask, held_other;
  if (!t.at(2).is_null()) held_mask = in.param_atom(t.at(2), e);
  if (t.size() > 3 && !t.at(3).is_null()) held_other = in.param_atom(t.at(3), e);
  const Value* mask = held_mask ? &as_value(*held_mask, e) : nullptr;
  const Value* other = held_other ? &as_value(*held_other, e) : nullptr;
  check_mask(view, mask, e);
  Region& reg = here_region(in, view, e);
  auto elems = view.elements();
  Value out{view.dtype, view.shape(), {}};
  const std::size_t es = dtype_size(view.dtype);
  for (std::size_t k = 0; k < elems.size(); ++k) {
    if (!masked_in(mask, k)) {
      out.data.push_back(other ? other->data[other->data.size() == 1 ? 0 : k] : 0.0);
      continue;
    }
    const auto i = static_cast<std::size_t>(elems[k]);
    reg.check_bounds(i, 1, e.loc);
    reg.access(i, 1, false, Proxy::generic, "masked_load", e.loc);
    out.data.push_back(load_element(view.dtype, reg.bytes() + i * es));
  }
  return {out};
}

const bool prims_ref_registered = [] {
  register_primitive("masked_swap", masked_swap);
  register_primitive("masked_load", masked_load);
  register_primitive("get", [](Interp& in, const Eqn& e, std::vector<Slot>& a) {
    auto view = apply_indexers(in, as_ref(a.at(0), e), transforms_of(e), e);
    return std::vector<Slot>{read_view(in, view, e, "get")};
  });
  register_primitive("swap", [](Interp& in, const Eqn& e, std::vector<Slot>& a) {
    auto view = apply_indexers(in, as_ref(a.at(0), e), transforms_of(e), e);
    Value old = read_view(in, view, e, "swap");
    write_view(in, view, as_value(a.at(1), e), e, "swap");
    return std::vector<Slot>{old};
  });
  register_primitive("addupdate", [](Interp& in, const Eqn& e, std::vector<Slot>& a) {
    auto view = apply_indexers(in, as_ref(a.at(0), e), transforms_of(e), e);
    Value sum = read_view(in, view, e, "addupdate");
    const Value& inc = as_value(a.at(1), e);
    for (std::size_t k = 0; k < sum.data.size(); ++k)
      sum.data[k] = normalize(sum.dtype, sum.data[k] + (inc.data.size() == 1 ? inc.data[0] : inc.data.at(k)));
    write_view(in, view, sum, e, "addupdate");
    return std::vector<Slot>{};
  });
  return true;
}();
}  // namespace

RefBinding apply_indexers(Interp& in, const RefBinding& ref, const json& transforms, const Eqn& e,
                          std::string* clipped) {
  RefBinding out = ref;
  for (const auto& t : transforms) {
    if (t.is_object() && t.value("type", "") == "RefReshaper") {
      out = reshape_view(out, t, e);
      continue;
    }
    if (!t.is_object() || !t.contains("indexer"))
      throw ModelError(fmt::format("{}: ref transform {} is not supported (only indexing: "
                                   "pl.ds slices and integers)", e.prim, t.dump()), e.loc);
    out = apply_one(in, out, t.at("indexer"), e, clipped);
  }
  return out;
}

}  // namespace heddle::pallas
