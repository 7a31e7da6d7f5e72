#include "models/pallas/pipeline.hpp"

#include <fmt/format.h>

#include "checker/engine/errors.hpp"

namespace heddle::pallas {
namespace {

tpu::Space space_of(const std::string& s) {
  if (s == "vmem") return tpu::Space::vmem;
  if (s == "smem") return tpu::Space::smem;
  return tpu::Space::hbm;
}

RefBinding memory_ref(const std::string& name, const Aval& aval, tpu::Space space) {
  auto& mesh = tpu::Mesh::current();
  RefBinding r;
  r.name = name;
  r.dtype = parse_dtype(aval.dtype);
  auto n = static_cast<std::size_t>(num_elements(aval.shape));
  r.alloc = &tpu::allocate(mesh, name, space, dtype_size(r.dtype), std::max<std::size_t>(n, 1));
  r.dims = dense_dims(aval.shape);
  return r;
}

RefBinding semaphore_ref(const std::string& name, const Aval& aval, const Eqn* where) {
  RefBinding r;
  r.kind = RefBinding::Kind::semaphore;
  r.name = name;
  r.dims = dense_dims(aval.shape);
  tpu::SemKind kind = tpu::SemKind::regular;
  if (aval.dtype == "dma_sem") {
    kind = tpu::SemKind::dma;
  } else if (aval.dtype != "semaphore") {
    throw ModelError(fmt::format("semaphore type {} of {} is not supported", aval.dtype, name),
                     where ? where->loc : std::source_location::current());
  }
  auto n = num_elements(aval.shape);
  for (std::int64_t i = 0; i < n; ++i)
    r.sems.push_back(tpu::make_semaphore(tpu::Mesh::current(),
                                         aval.shape.empty() ? name : fmt::format("{}[{}]", name, i),
                                         kind));
  return r;
}

// A scratch or run_scoped buffer: semaphores or memory in its space.
RefBinding scratch_ref(const std::string& name, const Aval& aval, const Eqn* where) {
  if (aval.space == "semaphore") return semaphore_ref(name, aval, where);
  return memory_ref(name, aval, aval.space == "smem" ? tpu::Space::smem : tpu::Space::vmem);
}

void find_scoped(const Jaxpr& j, Launch& l) {
  for (const auto& e : j.eqns) {
    if (e.prim == "run_scoped") {
      const Jaxpr& body = e.sub("jaxpr");
      auto& refs = l.scoped[&e];
      for (std::size_t k = 0; k < body.invars.size(); ++k)
        refs.push_back(scratch_ref(fmt::format("scoped{}.{}", e.loc.line(), k), body.invars[k].aval, &e));
    }
    for (const auto& [_, subs] : e.subs)
      for (const auto& s : subs) find_scoped(*s, l);
  }
}

// Writes each device's values into the operand's memory: its HBM array, or
// for a scalar-prefetch operand the SMEM copy of every core of the device.
void write_values(const Operand& o, const std::vector<std::vector<double>>& values) {
  const std::uint32_t cores = o.hbm->space == tpu::Space::hbm ? 1 : tpu::Mesh::current().cores();
  for (std::uint32_t d = 0; d < values.size(); ++d)
    for (std::uint32_t c = 0; c < cores; ++c) {
      Region& reg = region_of(*o.hbm, d, c);
      const auto es = dtype_size(o.dtype);
      for (std::size_t i = 0; i < values[d].size() && i < reg.size(); ++i)
        store_element(o.dtype, reg.bytes() + i * es, values[d][i]);
    }
}

// A scalar-prefetch operand (PrefetchScalarGridSpec's first operands): the
// whole array in SMEM before the grid starts, read by the body and by the
// index maps (Pallas TPU copies it in once, ahead of the pipeline).
Operand scalar_prefetch_operand(const std::string& name, const Aval& array) {
  Operand o;
  o.dtype = parse_dtype(array.dtype);
  o.array_shape = array.shape;
  o.kernel_ref = memory_ref(name, array, tpu::Space::smem);
  o.hbm = o.kernel_ref.alloc;
  return o;
}

Operand make_operand(const Program& p, std::size_t k, const Aval& array, bool output,
                     tpu::Allocation* aliased) {
  const Aval& param = p.kernel.invars.at(k).aval;
  const std::string& name = p.arg_names.at(k);
  if (k < p.num_index_operands) return scalar_prefetch_operand(name, array);
  Operand o;
  o.dtype = parse_dtype(array.dtype);
  o.array_shape = array.shape;
  o.is_output = output;
  bool blocked = param.space == "vmem" || param.space == "smem";
  o.hbm = aliased ? aliased
                  : memory_ref(blocked ? name + ".hbm" : name, array, tpu::Space::hbm).alloc;
  if (blocked) {
    o.block = &p.blocks.at(k - p.num_index_operands);  // block specs: inputs, then outputs
    Aval two = param;  // two buffers: the pipeline fills one while the body uses the other
    two.shape.insert(two.shape.begin(), 2);
    o.kernel_ref = memory_ref(name, two, space_of(param.space));
    o.kernel_ref.dims = dense_dims(param.shape);
    o.block_elems = num_elements(param.shape);
    for (int slot = 0; slot < 2; ++slot)
      o.sems.push_back(tpu::dma_semaphore(fmt::format("{}.copy_sem[{}]", name, slot)));
  } else {
    o.kernel_ref.alloc = o.hbm;
    o.kernel_ref.dtype = o.dtype;
    o.kernel_ref.dims = dense_dims(array.shape);
    o.kernel_ref.name = name;
  }
  return o;
}
}  // namespace

std::shared_ptr<Launch> prepare(std::shared_ptr<const Program> program) {
  auto l = std::make_shared<Launch>();
  l->program = program;
  const Program& p = *program;
  const std::size_t ins = p.num_index_operands + p.num_inputs;
  for (std::size_t k = 0; k < ins; ++k) {
    l->operands.push_back(make_operand(p, k, p.operands.at(k), false, nullptr));
    if (p.operand_values.at(k)) write_values(l->operands.back(), *p.operand_values[k]);
  }
  for (std::size_t o = 0; o < p.num_outputs; ++o) {
    tpu::Allocation* aliased = nullptr;
    for (auto [in, out] : p.aliases)
      if (out == o) aliased = l->operands.at(in).hbm;
    l->operands.push_back(make_operand(p, ins + o, p.outputs.at(o), true, aliased));
  }
  for (std::size_t s = 0; s < p.num_scratch; ++s) {
    std::size_t k = ins + p.num_outputs + s;
    l->scratch.push_back(scratch_ref(p.arg_names.at(k), p.kernel.invars.at(k).aval, nullptr));
  }
  find_scoped(p.kernel, *l);
  return l;
}

}  // namespace heddle::pallas
