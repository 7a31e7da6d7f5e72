// cudaGetDriverEntryPoint: the driver functions heddle implements
// (driver_calls.hpp); any other one is an error naming it.
#include <fmt/format.h>

#include "models/cuda/lib/api.hpp"
#include "models/cuda/lib/driver_calls.hpp"

using namespace heddle::cuda;

namespace {

cudaError_t entry_point(const char* symbol, void** fn, cudaDriverEntryPointQueryResult* status) {
  *fn = driver::lookup(symbol);
  if (*fn == nullptr)
    fail(fmt::format("cudaGetDriverEntryPoint({}): heddle's CUDA runtime does not implement this "
                     "driver function",
                     symbol));
  if (status != nullptr) *status = cudaDriverEntryPointSuccess;
  return cudaSuccess;
}

}  // namespace

extern "C" {

cudaError_t cudaGetDriverEntryPoint(const char* symbol, void** fn, unsigned long long,
                                    cudaDriverEntryPointQueryResult* status) {
  return entry_point(symbol, fn, status);
}
cudaError_t cudaGetDriverEntryPointByVersion(const char* symbol, void** fn, unsigned, unsigned long long,
                                             cudaDriverEntryPointQueryResult* status) {
  return entry_point(symbol, fn, status);
}

}  // extern "C"
