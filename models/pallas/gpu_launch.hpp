// The Mosaic GPU (plgpu) route of the Pallas front end: a kernel exported
// from a core_map over a plgpu Mesh runs on models/gpu (gpu_launch.cpp),
// its primitives interpreted by prims_gpu.cpp.
#pragma once
#include <map>
#include <memory>
#include <vector>

#include "models/pallas/interp.hpp"
#include "models/pallas/program.hpp"

namespace heddle::pallas {

/// Everything one execution of a Mosaic GPU kernel allocated at setup.
struct GpuLaunch {
  std::shared_ptr<const Program> program;
  std::vector<RefBinding> operands;                       // GMEM, in the kernel's order
  std::map<const Eqn*, std::vector<RefBinding>> scoped;   // run_scoped scratch
};

/// Allocates operands and scratch and writes the inputs (after gpu::grid()).
std::shared_ptr<GpuLaunch> prepare_gpu(std::shared_ptr<const Program> program);

/// The setup of one execution: the launch, its threads, and the exit check
/// of the outputs against JAX's values.
void setup_gpu(const std::shared_ptr<const Program>& program);

}  // namespace heddle::pallas
