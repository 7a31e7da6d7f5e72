// What the interpreter takes for granted of an export, checked once at
// load: the exporter writes files that satisfy it, and a damaged or
// hand-edited file gets a UsageError naming the problem (exit 2) instead of
// failing inside an execution.
#pragma once
#include "models/pallas/program.hpp"

namespace heddle::pallas {

/// The most elements one array may have (memory for it is allocated per
/// device and core; larger kernels are beyond what heddle explores).
inline constexpr std::int64_t kMaxElements = std::int64_t{1} << 22;
/// The most kernel threads (devices x cores) a mesh may have.
inline constexpr std::uint32_t kMaxThreads = 64;

/// Checks `p` (read from `p.path`): mesh and grid sizes, every array's
/// dtype and size, binders that are variables, and every variable bound
/// before an equation reads it. UsageError naming the file and the problem.
void validate(const Program& p);

}  // namespace heddle::pallas
