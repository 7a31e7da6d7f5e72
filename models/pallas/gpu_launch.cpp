// A Mosaic GPU (plgpu) kernel onto models/gpu: one heddle thread per (CTA,
// Pallas thread); a Pallas thread is a warpgroup, as in models/gpu/pallas.hpp.
// The plgpu Mesh's grid counts clusters and its cluster counts CTAs per
// cluster, so the launch has prod(grid) * prod(cluster) CTAs. Kernel
// operands are GMEM regions with global addresses; run_scoped scratch is
// allocated at setup: GMEM once, SMEM and barriers once per CTA when the
// scope is collective over the thread axis (plgpu.kernel's scratch_shapes),
// else once per thread.
#include "models/pallas/gpu_launch.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "checker/engine/errors.hpp"
#include "models/gpu/gpu.hpp"

namespace heddle::pallas {
namespace {

// `instances` regions of `aval`'s elements; GMEM ones get a global address.
RefBinding memory(const std::string& name, const Aval& aval, std::size_t instances) {
  RefBinding r;
  r.name = name;
  r.dtype = parse_dtype(aval.dtype);
  r.dims = dense_dims(aval.shape);
  auto n = std::max<std::size_t>(static_cast<std::size_t>(num_elements(aval.shape)), 1);
  auto& a = make<tpu::Allocation>();
  a.name = name;
  a.space = aval.space == "smem" ? tpu::Space::smem : tpu::Space::hbm;
  a.count = n;
  for (std::size_t i = 0; i < instances; ++i) {
    auto& reg = make<Region>(instances == 1 ? name : fmt::format("{}@{}", name, i),
                             dtype_size(r.dtype), n);
    if (a.space == tpu::Space::hbm) gpu::current_grid().map_global(reg);
    a.instances.push_back(&reg);
  }
  r.alloc = &a;
  return r;
}

// plgpu.Barrier(num_arrivals, num_barriers): an array of mbarriers per instance.
RefBinding barriers(const std::string& name, const Aval& aval, std::size_t instances) {
  RefBinding r;
  r.kind = RefBinding::Kind::barrier;
  r.name = name;
  r.dims = dense_dims(aval.shape);
  r.per_instance = num_elements(aval.shape);
  for (std::size_t i = 0; i < instances; ++i)
    for (std::int64_t k = 0; k < r.per_instance; ++k) {
      std::string n = name;
      if (r.per_instance > 1) n += fmt::format("[{}]", k);
      if (instances > 1) n += fmt::format("@{}", i);
      r.bars.push_back(&make<gpu::Mbarrier>(n, std::max(aval.num_arrivals, 1u)));
    }
  return r;
}

bool collective_over_threads(const Program& p, const Eqn& e) {
  if (p.gpu_mesh.num_threads <= 1) return true;
  const auto& axes = e.params.value("collective_axes", nlohmann::json::array());
  return std::any_of(axes.begin(), axes.end(), [&](const nlohmann::json& a) {
    return a.is_string() && a.get<std::string>() == p.gpu_mesh.thread_name;
  });
}

// The scratch refs of every run_scoped equation (its body's inputs).
void find_scoped(const Program& p, const Jaxpr& j, GpuLaunch& l) {
  const auto ctas = static_cast<std::size_t>(p.gpu_mesh.ctas());
  for (const auto& e : j.eqns) {
    if (e.prim == "run_scoped") {
      const bool shared = collective_over_threads(p, e);
      const std::size_t per_cta = shared ? ctas : ctas * p.gpu_mesh.num_threads;
      const Jaxpr& body = e.sub("jaxpr");
      auto& refs = l.scoped[&e];
      for (std::size_t k = 0; k < body.invars.size(); ++k) {
        const Aval& a = body.invars[k].aval;
        std::string name = k < body.arg_names.size() && !body.arg_names[k].empty()
                               ? body.arg_names[k]
                               : fmt::format("scratch{}.{}", e.loc.line(), k);
        RefBinding r = a.dtype == "barrier" ? barriers(name, a, per_cta)
                       : a.space == "smem"  ? memory(name, a, per_cta)
                                            : memory(name, a, 1);
        r.per_thread = !shared && (a.space == "smem" || a.dtype == "barrier");
        if (a.space != "smem" && a.space != "gmem")
          throw ModelError(fmt::format("scratch in memory space {} is not supported (GMEM, SMEM "
                                       "and barriers are)", a.space), e.loc);
        refs.push_back(std::move(r));
      }
    }
    for (const auto& [_, subs] : e.subs)
      for (const auto& s : subs) find_scoped(p, *s, l);
  }
}

// The values in operand k's region (one element per dtype-sized slot).
std::vector<double> values_of(const RefBinding& r) {
  Region& reg = *r.alloc->instances.at(0);
  std::vector<double> out;
  for (std::size_t i = 0; i < reg.size(); ++i)
    out.push_back(load_element(r.dtype, reg.bytes() + i * dtype_size(r.dtype)));
  return out;
}

// At exit: observes every output and compares it with JAX's values when given.
void check_outputs(const GpuLaunch& l) {
  const Program& p = *l.program;
  for (std::size_t k = 0; k < l.operands.size(); ++k) {
    if (!p.operand_output[k]) continue;
    const RefBinding& r = l.operands[k];
    auto got = values_of(r);
    Value v{r.dtype, {static_cast<std::int64_t>(got.size())}, got};
    observe(r.name, v.text());
    const std::size_t out = *p.operand_output[k];
    if (!p.expected || out >= p.expected->size() || (*p.expected)[out].empty()) continue;
    const auto& want = (*p.expected)[out].at(0);
    for (std::size_t i = 0; i < want.size() && i < got.size(); ++i) {
      double w = normalize(r.dtype, want[i]);
      check(got[i] == w, fmt::format("{}[{}] = {}, but JAX computes {}", r.name, i, got[i], w),
            p.kernel_loc);
    }
  }
}

}  // namespace

std::shared_ptr<GpuLaunch> prepare_gpu(std::shared_ptr<const Program> program) {
  auto l = std::make_shared<GpuLaunch>();
  l->program = program;
  const Program& p = *program;
  for (std::size_t k = 0; k < p.operands.size(); ++k) {
    Aval a = p.operands[k];
    a.space = "gmem";
    l->operands.push_back(memory(p.arg_names.at(k), a, 1));
    Region& reg = *l->operands.back().alloc->instances.at(0);
    if (!p.operand_values[k] || p.operand_values[k]->empty()) continue;
    const auto& vals = p.operand_values[k]->at(0);
    const auto d = l->operands.back().dtype;
    for (std::size_t i = 0; i < vals.size() && i < reg.size(); ++i)
      store_element(d, reg.bytes() + i * dtype_size(d), vals[i]);
  }
  find_scoped(p, p.kernel, *l);
  return l;
}

void setup_gpu(const std::shared_ptr<const Program>& program) {
  const Program& p = *program;
  gpu::LaunchConfig cfg;
  cfg.cluster = static_cast<int>(p.gpu_mesh.cluster_ctas());
  cfg.ctas = static_cast<int>(p.gpu_mesh.ctas());
  cfg.threads.clear();
  const std::string t = p.gpu_mesh.thread_name.empty() ? "t" : p.gpu_mesh.thread_name;
  for (std::uint32_t i = 0; i < p.gpu_mesh.num_threads; ++i)
    cfg.threads.push_back({fmt::format("{}{}", t, i)});
  gpu::Grid& g = gpu::grid(cfg);
  std::shared_ptr<GpuLaunch> launch;
  try {
    launch = prepare_gpu(program);
  } catch (const std::logic_error& e) {  // invalid_argument, out_of_range: the file's fault
    throw UsageError(fmt::format("{}: malformed heddle Pallas export: {}", p.path, e.what()));
  }
  g.launch([launch](const gpu::ThreadInfo& info) {
    ThreadContext ctx;
    ctx.core = static_cast<std::uint32_t>(info.cta);
    ctx.thread = static_cast<std::uint32_t>(info.thread);
    ctx.gpu = true;
    ctx.program = launch->program.get();
    ctx.scoped = &launch->scoped;
    Interp in(ctx);
    std::vector<Slot> args(launch->operands.begin(), launch->operands.end());
    in.eval(ctx.program->kernel, args);
  });
  at_exit([launch] { check_outputs(*launch); });
}

}  // namespace heddle::pallas
