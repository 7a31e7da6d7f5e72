// Exploration of a kernel: executions under a strategy, within budgets.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "checker/explore/result.hpp"

namespace heddle {

/// Explores `kernel` with `params` under `config`.
RunResult explore(const Kernel& kernel, const Params& params, const RunConfig& config,
                  const ExecutionObserver& observer = {});

}  // namespace heddle
