// The Pallas front end: `heddle run --pallas FILE` (kernel "pallas:FILE").
// Loads the exported kernel, and builds one execution per run: a TPU mesh,
// the operands, one kernel thread per (device, core) interpreting the
// jaxpr, and at exit the outputs, observed and checked against JAX's own
// outputs when the export carries them.
#include <fmt/format.h>

#include <cmath>

#include "checker/engine/errors.hpp"
#include "checker/heddle.hpp"
#include "models/pallas/gpu_launch.hpp"
#include "models/pallas/pipeline.hpp"

namespace heddle::pallas {
namespace {

std::string output_text(const Operand& o, std::uint32_t device, std::vector<double>& values) {
  Region& reg = region_of(*o.hbm, device, 0);
  Value v{o.dtype, o.array_shape, {}};
  const auto es = dtype_size(o.dtype);
  for (std::size_t i = 0; i < reg.size(); ++i) v.data.push_back(load_element(o.dtype, reg.bytes() + i * es));
  values = v.data;
  return v.text();
}

// Observes every output and checks it against the expected values.
void check_outputs(const Launch& l) {
  const Program& p = *l.program;
  const std::size_t first = p.num_index_operands + p.num_inputs;
  for (std::size_t k = 0; k < p.num_outputs; ++k) {
    const Operand& o = l.operands.at(first + k);
    for (std::uint32_t d = 0; d < p.devices; ++d) {
      std::vector<double> got;
      std::string text = output_text(o, d, got);
      observe(fmt::format("dev{}.{}", d, o.kernel_ref.name), text);
      if (!p.expected || k >= p.expected->size() || (*p.expected)[k].empty()) continue;
      const auto& want = (*p.expected)[k].at(d);
      for (std::size_t i = 0; i < want.size() && i < got.size(); ++i) {
        double w = normalize(o.dtype, want[i]);
        const bool same = got[i] == w || (std::isnan(got[i]) && std::isnan(w)) ||
                          std::fabs(got[i] - w) <= p.expected_atol + p.expected_rtol * std::fabs(w);
        check(same, fmt::format("dev{} {}[{}] = {}, but JAX computes {}", d,
                                       o.kernel_ref.name, i, got[i], w), p.kernel_loc);
      }
    }
  }
}

void setup(const std::shared_ptr<const Program>& program, const Params& params) {
  const Program& p = *program;
  tpu::MeshConfig config{p.devices, p.cores, tpu::parse_dma_order(params.get("dma_order")), {}};
  for (const auto& [_, size] : p.mesh_axes) config.shape.push_back(size);
  auto& mesh = make<tpu::Mesh>(config);
  std::shared_ptr<Launch> launch;
  try {
    launch = prepare(program);
  } catch (const std::logic_error& e) {  // invalid_argument, out_of_range: the file's fault
    throw UsageError(fmt::format("{}: malformed heddle Pallas export: {}", p.path, e.what()));
  }
  launch->clip_out_of_bounds = params.get("out_of_bounds") == "clip";
  mesh.launch([launch] { run_core(*launch); });
  at_exit([launch] { check_outputs(*launch); });
}

Kernel load(const std::string& path) {
  auto program = std::make_shared<const Program>(load_program(path));
  Kernel k;
  if (program->gpu) {
    k.description = fmt::format("Mosaic GPU kernel {} exported from JAX ({})", program->name, path);
    k.setup = [program](const Params&) { setup_gpu(program); };
    return k;
  }
  k.description = fmt::format("Pallas kernel {} exported from JAX ({} device{}, {})",
                              program->name, program->devices, program->devices == 1 ? "" : "s",
                              path);
  k.params.push_back(ParamSpec{"dma_order", ParamSpec::Type::choice, "any", tpu::dma_order_names(),
                               0, 0, false,
                               "DMA completion: any order (explored), eager or on_wait (JAX "
                               "interpret modes)"});
  k.params.push_back(ParamSpec{"out_of_bounds", ParamSpec::Type::choice, "stop", {"stop", "clip"},
                               0, 0, false,
                               "an out-of-bounds DMA: a bug that ends the execution (stop), or "
                               "a note, moving its in-bounds part, to explore past it (clip)"});
  k.setup = [program](const Params& params) { setup(program, params); };
  return k;
}

const Registration pallas_front_end = register_loader(
    KernelLoader{"pallas", "a Pallas kernel exported with heddle_pallas.export (JSON)", load});

}  // namespace
}  // namespace heddle::pallas
