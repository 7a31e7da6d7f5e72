// Memory calls: device memory is host memory in heddle's reserved range
// (models/cuda/device_memory.hpp); copies and sets act at once (streams
// run in order, and a launch is over when its call returns).
#include <fmt/format.h>

#include <cstdlib>
#include <cstring>
#include <new>

#include "models/cuda/device_memory.hpp"
#include "models/cuda/lib/api.hpp"
#include "models/cuda/modules.hpp"

using namespace heddle::cuda;

namespace {

cudaError_t allocate(void** ptr, size_t size) {
  if (ptr == nullptr) return cudaErrorInvalidValue;
  try {
    *ptr = reinterpret_cast<void*>(device_memory().allocate(size).base);
  } catch (const std::bad_alloc&) {
    return cudaErrorMemoryAllocation;
  }
  return cudaSuccess;
}

// A copy's device side must lie inside one allocation (else the program
// gets cudaErrorInvalidValue, as from CUDA).
bool device_range(const void* p, std::size_t count) {
  auto a = reinterpret_cast<std::uint64_t>(p);
  return !DeviceMemory::in_range(a) || count == 0 || device_memory().find(a, count) != nullptr;
}

cudaError_t copy(void* dst, const void* src, size_t count) {
  if (!device_range(dst, count) || !device_range(src, count)) return cudaErrorInvalidValue;
  if (count > 0) std::memmove(dst, src, count);
  return cudaSuccess;
}

cudaError_t fill(void* dst, int value, size_t count) {
  if (!device_range(dst, count)) return cudaErrorInvalidValue;
  if (count > 0) std::memset(dst, value, count);
  return cudaSuccess;
}

}  // namespace

extern "C" {

cudaError_t cudaMalloc(void** ptr, size_t size) { return set_error(allocate(ptr, size)); }
cudaError_t cudaMallocAsync(void** ptr, size_t size, cudaStream_t) { return cudaMalloc(ptr, size); }
cudaError_t cudaMallocManaged(void** ptr, size_t size, unsigned) { return cudaMalloc(ptr, size); }

cudaError_t cudaFree(void* ptr) {
  if (ptr == nullptr) return cudaSuccess;
  return set_error(device_memory().free(reinterpret_cast<std::uint64_t>(ptr)) ? cudaSuccess
                                                                              : cudaErrorInvalidValue);
}
cudaError_t cudaFreeAsync(void* ptr, cudaStream_t) { return cudaFree(ptr); }

cudaError_t cudaMallocHost(void** ptr, size_t size) {
  *ptr = std::calloc(1, size ? size : 1);
  return set_error(*ptr ? cudaSuccess : cudaErrorMemoryAllocation);
}
cudaError_t cudaHostAlloc(void** ptr, size_t size, unsigned) { return cudaMallocHost(ptr, size); }
cudaError_t cudaFreeHost(void* ptr) {
  std::free(ptr);
  return cudaSuccess;
}

cudaError_t cudaMemcpy(void* dst, const void* src, size_t count, cudaMemcpyKind) {
  return set_error(copy(dst, src, count));
}
cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t count, cudaMemcpyKind kind,
                            cudaStream_t) {
  return cudaMemcpy(dst, src, count, kind);
}
cudaError_t cudaMemset(void* dst, int value, size_t count) { return set_error(fill(dst, value, count)); }
cudaError_t cudaMemsetAsync(void* dst, int value, size_t count, cudaStream_t) {
  return cudaMemset(dst, value, count);
}

cudaError_t cudaMemcpyToSymbol(const void* symbol, const void* src, size_t count, size_t offset,
                               cudaMemcpyKind) {
  std::size_t bytes = 0;
  std::uint64_t base = variable_address(symbol, &bytes);
  if (base == 0 || offset + count > bytes) return set_error(cudaErrorInvalidSymbol);
  return cudaMemcpy(reinterpret_cast<void*>(base + offset), src, count, cudaMemcpyDefault);
}
cudaError_t cudaMemcpyFromSymbol(void* dst, const void* symbol, size_t count, size_t offset,
                                 cudaMemcpyKind) {
  std::size_t bytes = 0;
  std::uint64_t base = variable_address(symbol, &bytes);
  if (base == 0 || offset + count > bytes) return set_error(cudaErrorInvalidSymbol);
  return cudaMemcpy(dst, reinterpret_cast<void*>(base + offset), count, cudaMemcpyDefault);
}
cudaError_t cudaGetSymbolAddress(void** ptr, const void* symbol) {
  std::uint64_t base = variable_address(symbol);
  if (base == 0) return set_error(cudaErrorInvalidSymbol);
  *ptr = reinterpret_cast<void*>(base);
  return cudaSuccess;
}

cudaError_t cudaMemGetInfo(size_t* free, size_t* total) {
  *total = std::size_t{80} << 30;
  *free = *total;
  return cudaSuccess;
}

}  // extern "C"
