#include "models/pallas/interp.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "checker/engine/errors.hpp"
#include "models/tpu/pipeline.hpp"

namespace heddle::pallas {
namespace {
std::map<std::string, PrimFn>& table() {
  static std::map<std::string, PrimFn> t;
  return t;
}
}  // namespace

bool register_primitive(const std::string& name, PrimFn fn) {
  table()[name] = std::move(fn);
  return true;
}

bool has_primitive(const std::string& name) { return table().count(name) > 0; }

Shape RefBinding::shape() const {
  Shape s;
  for (const auto& d : dims) s.push_back(d.size);
  return s;
}

std::vector<std::int64_t> RefBinding::elements() const {
  std::vector<std::int64_t> out{offset};
  for (const auto& d : dims) {
    std::vector<std::int64_t> next;
    next.reserve(out.size() * static_cast<std::size_t>(d.size));
    for (auto base : out)
      for (std::int64_t i = 0; i < d.size; ++i) next.push_back(base + i * d.stride);
    out = std::move(next);
  }
  return out;
}

std::vector<Dim> dense_dims(const Shape& shape) {
  std::vector<Dim> dims(shape.size());
  std::int64_t stride = 1;
  for (std::size_t i = shape.size(); i-- > 0;) {
    dims[i] = Dim{shape[i], stride};
    stride *= shape[i];
  }
  return dims;
}

Region& region_of(const tpu::Allocation& alloc, std::uint32_t device, std::uint32_t core) {
  auto& mesh = tpu::Mesh::current();
  auto i = alloc.space == tpu::Space::hbm ? device : mesh.instance(device, core);
  return *alloc.instances.at(i);
}

Region& region_here(const ThreadContext& c, const RefBinding& r) {
  if (!c.gpu) return region_of(*r.alloc, c.device, c.core);
  if (r.alloc->space == tpu::Space::hbm) return *r.alloc->instances.at(0);
  const auto threads = c.program->gpu_mesh.num_threads;
  return *r.alloc->instances.at(r.per_thread ? c.core * threads + c.thread : c.core);
}

std::pair<std::size_t, std::size_t> contiguous_range(const RefBinding& r, const Region& region,
                                                     const Eqn& e) {
  auto elems = r.elements();
  for (std::size_t i = 1; i < elems.size(); ++i)
    if (elems[i] != elems[i - 1] + 1)
      throw ModelError(fmt::format("{}: the view of {} is not contiguous; heddle's copies move "
                                   "one contiguous range (slice leading dimensions only)", e.prim,
                                   r.name), e.loc);
  std::size_t first = elems.empty() ? 0 : static_cast<std::size_t>(elems[0]);
  region.check_bounds(first, elems.size(), e.loc);
  return {first, elems.size()};
}

tpu::Place strided_place(const RefBinding& r, Region& region, const Eqn& e) {
  auto elems = r.elements();
  if (elems.empty()) return tpu::Place{&region, 0, 0};
  const auto [lo, hi] = std::minmax_element(elems.begin(), elems.end());
  if (*lo < 0) region.check_bounds(region.size(), 1, e.loc);  // names the region and its size
  region.check_bounds(static_cast<std::size_t>(*lo), static_cast<std::size_t>(*hi - *lo + 1), e.loc);
  auto places = tpu::strided_runs(tpu::Place{&region, 0, region.size()}, elems);
  if (places.size() != 1)
    throw ModelError(fmt::format("{}: the view of {} is neither contiguous nor one strided box; "
                                 "heddle's DMAs move equal runs evenly spaced", e.prim, r.name),
                     e.loc);
  return places.front();
}

const Value& as_value(const Slot& s, const Eqn& e) {
  if (const auto* v = std::get_if<Value>(&s)) return *v;
  throw ModelError(fmt::format("{}: expected an array operand, got a ref", e.prim), e.loc);
}

const RefBinding& as_ref(const Slot& s, const Eqn& e) {
  if (const auto* r = std::get_if<RefBinding>(&s)) return *r;
  throw ModelError(fmt::format("{}: expected a ref operand, got an array", e.prim), e.loc);
}

Slot Interp::read(const Atom& a, const Eqn* e) const {
  if (!a.var) return a.literal;
  auto it = env_.find(*a.var);
  if (it == env_.end())
    throw ModelError(fmt::format("[heddle bug] variable {} read before it was bound", *a.var),
                     e ? e->loc : ctx_.program->kernel_loc);
  return it->second;
}

Slot Interp::param_atom(const nlohmann::json& atom, const Eqn& e) const {
  if (atom.is_number_integer()) return Value::scalar(DType::i32, atom.get<double>());
  if (atom.contains("var")) {
    Atom a;
    a.var = integer<std::int64_t>(atom.at("var"));
    return read(a, &e);
  }
  if (atom.contains("lit")) {
    const auto& lit = atom.at("lit");
    return Value::scalar(parse_dtype(atom.value("dtype", "int32")), number(lit));
  }
  throw ModelError(fmt::format("{}: unexpected parameter {}", e.prim, atom.dump()), e.loc);
}

std::vector<Slot> Interp::eval(const Jaxpr& j, const std::vector<Slot>& args) {
  const std::size_t n = j.open_constvars.size();
  if (args.size() != n + j.invars.size())
    throw ModelError(fmt::format("a sub-jaxpr takes {} inputs, given {} (a malformed export?)",
                                 n + j.invars.size(), args.size()));
  for (const auto& c : j.constvars) env_[*c.var] = c.literal;
  for (std::size_t i = 0; i < args.size(); ++i)
    env_[*(i < n ? j.open_constvars[i] : j.invars[i - n]).var] = args[i];
  for (const auto& e : j.eqns) {
    std::vector<Slot> ins;
    ins.reserve(e.ins.size());
    for (const auto& a : e.ins) ins.push_back(read(a, &e));
    std::vector<Slot> outs;
    try {
      outs = table().at(e.prim)(*this, e, ins);
    } catch (const std::invalid_argument& err) {
      throw ModelError(fmt::format("{}: {}", e.prim, err.what()), e.loc);
    } catch (const std::out_of_range& err) {
      throw ModelError(fmt::format("{}: {}", e.prim, err.what()), e.loc);
    } catch (const nlohmann::json::exception& err) {
      throw ModelError(fmt::format("{}: malformed parameters in the export: {}", e.prim, err.what()),
                       e.loc);
    }
    if (outs.size() != e.outs.size())
      throw ModelError(fmt::format("{} gave {} results for {} outputs (a malformed export?)", e.prim,
                                   outs.size(), e.outs.size()),
                       e.loc);
    for (std::size_t i = 0; i < outs.size(); ++i)
      if (e.outs[i].var) env_[*e.outs[i].var] = std::move(outs[i]);
  }
  std::vector<Slot> out;
  for (const auto& a : j.outvars) out.push_back(read(a, nullptr));
  return out;
}

}  // namespace heddle::pallas
