// One kernel launch of a program run under heddle: its PTX interpreted over
// the program's device memory, explored when its kernel matches --check,
// else run on one schedule; a bug ends the program with heddle's report.
#pragma once
#include <array>
#include <cstddef>

#include "models/cuda/modules.hpp"

namespace heddle::cuda {

/// What cudaLaunchKernel(ExC) received.
struct LaunchRequest {
  KernelEntry* kernel = nullptr;
  std::array<int, 3> grid{1, 1, 1}, block{1, 1, 1}, cluster{1, 1, 1};
  std::size_t dynamic_shared = 0;
  void** args = nullptr;
};

/// Runs the launch to completion: afterwards device memory holds one
/// execution's final values. A bug prints the report, writes the
/// counterexample and ends the program (exit 1); bad input exits 2.
void run_launch(const LaunchRequest& request);

/// Launches run so far.
int launches();

}  // namespace heddle::cuda
