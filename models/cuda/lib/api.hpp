// Shared by the runtime library's files: the CUDA runtime's types (from the
// toolkit's headers, so the ABI is the real one) and the error helpers.
#pragma once
#include <cuda_runtime_api.h>

#include <exception>
#include <string>

namespace heddle::cuda {

/// Records `e` as the last error (cudaGetLastError) and returns it.
cudaError_t set_error(cudaError_t e);
/// Runs `body`; a usage error inside ends the program (exit 2, named).
template <class F>
cudaError_t guarded(F&& body);

/// Ends the program for a runtime error: "heddle: error: WHAT" (exit 2).
[[noreturn]] void fail_api(const std::string& what);

template <class F>
cudaError_t guarded(F&& body) {
  try {
    return set_error(body());
  } catch (const std::exception& e) {
    fail_api(e.what());
  }
}

}  // namespace heddle::cuda
