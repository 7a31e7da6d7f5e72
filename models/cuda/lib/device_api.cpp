// Device queries (one sm_90a device with H100 SXM properties), errors,
// streams and events (everything runs in order, at the call), function
// attributes and occupancy.
#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "models/cuda/lib/api.hpp"
#include "models/cuda/modules.hpp"
#include "models/cuda/session.hpp"

using namespace heddle::cuda;

namespace {

thread_local cudaError_t last_error = cudaSuccess;
int stream_count = 0;

constexpr int kDefaultSms = 132;  // an H100 SXM

// The device's multiprocessor count: `heddle cuda --sms N`, else an H100's.
// Persistent kernels (CUTLASS's tile schedulers) size their grids by it.
int sms() {
  static const int n = [] {
    auto it = options().given.find("sms");
    if (it == options().given.end()) return kDefaultSms;
    char* end = nullptr;
    const long v = std::strtol(it->second.c_str(), &end, 10);
    if (end == it->second.c_str() || *end != '\0' || v < 1 || v > 1024)
      fail(fmt::format("--sms {}: give a multiprocessor count from 1 to 1024", it->second));
    return static_cast<int>(v);
  }();
  return n;
}
constexpr int kSharedOptin = 232448;  // 227 KiB per block (sm_90)
constexpr int kSharedPerSm = 233472;

// An attribute heddle reports, or -1 for one it does not know.
int attribute(cudaDeviceAttr a) {
  switch (a) {
    case cudaDevAttrMultiProcessorCount: return sms();
    case cudaDevAttrComputeCapabilityMajor: return 9;
    case cudaDevAttrComputeCapabilityMinor: return 0;
    case cudaDevAttrMaxThreadsPerBlock: return 1024;
    case cudaDevAttrMaxThreadsPerMultiProcessor: return 2048;
    case cudaDevAttrWarpSize: return 32;
    case cudaDevAttrMaxSharedMemoryPerBlock: return 49152;
    case cudaDevAttrMaxSharedMemoryPerBlockOptin: return kSharedOptin;
    case cudaDevAttrMaxSharedMemoryPerMultiprocessor: return kSharedPerSm;
    case cudaDevAttrL2CacheSize: return 50 << 20;
    case cudaDevAttrMaxRegistersPerBlock: return 65536;
    case cudaDevAttrClockRate: return 1980000;
    case cudaDevAttrMaxBlockDimX: case cudaDevAttrMaxBlockDimY: return 1024;
    case cudaDevAttrMaxBlockDimZ: return 64;
    case cudaDevAttrMaxGridDimX: return 2147483647;
    case cudaDevAttrMaxGridDimY: case cudaDevAttrMaxGridDimZ: return 65535;
    case cudaDevAttrClusterLaunch: return 1;
    case cudaDevAttrConcurrentKernels: return 1;
    case cudaDevAttrUnifiedAddressing: return 1;
    case cudaDevAttrMemoryPoolsSupported: return 1;
    default: return -1;
  }
}

}  // namespace

namespace heddle::cuda {

cudaError_t set_error(cudaError_t e) {
  if (e != cudaSuccess) last_error = e;
  return e;
}

void fail_api(const std::string& what) { fail(what); }

}  // namespace heddle::cuda

extern "C" {

cudaError_t cudaGetLastError() {
  cudaError_t e = last_error;
  last_error = cudaSuccess;
  return e;
}
cudaError_t cudaPeekAtLastError() { return last_error; }

const char* cudaGetErrorString(cudaError_t e) {
  switch (e) {
    case cudaSuccess: return "no error";
    case cudaErrorInvalidValue: return "invalid argument";
    case cudaErrorMemoryAllocation: return "out of memory";
    case cudaErrorInvalidConfiguration: return "invalid configuration argument";
    case cudaErrorInvalidSymbol: return "invalid device symbol";
    case cudaErrorInvalidDevice: return "invalid device ordinal";
    case cudaErrorMissingConfiguration: return "__global__ function call is not configured";
    default: return "unknown error (heddle runtime)";
  }
}
const char* cudaGetErrorName(cudaError_t e) {
  switch (e) {
    case cudaSuccess: return "cudaSuccess";
    case cudaErrorInvalidValue: return "cudaErrorInvalidValue";
    case cudaErrorMemoryAllocation: return "cudaErrorMemoryAllocation";
    case cudaErrorInvalidConfiguration: return "cudaErrorInvalidConfiguration";
    case cudaErrorInvalidSymbol: return "cudaErrorInvalidSymbol";
    case cudaErrorInvalidDevice: return "cudaErrorInvalidDevice";
    default: return "cudaErrorUnknown";
  }
}

cudaError_t cudaGetDeviceCount(int* count) {
  *count = 1;
  return cudaSuccess;
}
cudaError_t cudaGetDevice(int* device) {
  *device = 0;
  return cudaSuccess;
}
cudaError_t cudaSetDevice(int device) { return set_error(device == 0 ? cudaSuccess : cudaErrorInvalidDevice); }
cudaError_t cudaSetDeviceFlags(unsigned) { return cudaSuccess; }
cudaError_t cudaDeviceSynchronize() { return cudaSuccess; }
cudaError_t cudaDeviceReset() { return cudaSuccess; }
cudaError_t cudaDriverGetVersion(int* v) {
  *v = 13000;
  return cudaSuccess;
}
cudaError_t cudaRuntimeGetVersion(int* v) {
  *v = 13000;
  return cudaSuccess;
}

cudaError_t cudaDeviceGetAttribute(int* value, cudaDeviceAttr attr, int device) {
  if (device != 0) return set_error(cudaErrorInvalidDevice);
  int v = attribute(attr);
  if (v < 0)
    fail(fmt::format("cudaDeviceGetAttribute: heddle's runtime does not report device attribute "
                     "{} (driver_types.h cudaDeviceAttr)",
                     static_cast<int>(attr)));
  *value = v;
  return cudaSuccess;
}

cudaError_t cudaGetDeviceProperties(cudaDeviceProp* p, int device) {
  if (device != 0) return set_error(cudaErrorInvalidDevice);
  std::memset(p, 0, sizeof *p);
  std::strncpy(p->name, "NVIDIA H100 (heddle model)", sizeof p->name - 1);
  p->totalGlobalMem = std::size_t{80} << 30;
  p->sharedMemPerBlock = 49152;
  p->sharedMemPerBlockOptin = kSharedOptin;
  p->sharedMemPerMultiprocessor = kSharedPerSm;
  p->regsPerBlock = p->regsPerMultiprocessor = 65536;
  p->warpSize = 32;
  p->maxThreadsPerBlock = 1024;
  p->maxThreadsPerMultiProcessor = 2048;
  p->maxThreadsDim[0] = p->maxThreadsDim[1] = 1024;
  p->maxThreadsDim[2] = 64;
  p->maxGridSize[0] = 2147483647;
  p->maxGridSize[1] = p->maxGridSize[2] = 65535;
  p->major = 9;
  p->minor = 0;
  p->multiProcessorCount = sms();
  p->l2CacheSize = 50 << 20;
  p->unifiedAddressing = 1;
  p->concurrentKernels = 1;
  p->clusterLaunch = 1;
  return cudaSuccess;
}

cudaError_t cudaStreamCreate(cudaStream_t* s) {
  *s = reinterpret_cast<cudaStream_t>(static_cast<std::uintptr_t>(++stream_count) << 4);
  return cudaSuccess;
}
cudaError_t cudaStreamCreateWithFlags(cudaStream_t* s, unsigned) { return cudaStreamCreate(s); }
cudaError_t cudaStreamCreateWithPriority(cudaStream_t* s, unsigned, int) { return cudaStreamCreate(s); }
cudaError_t cudaStreamDestroy(cudaStream_t) { return cudaSuccess; }
cudaError_t cudaStreamSynchronize(cudaStream_t) { return cudaSuccess; }
cudaError_t cudaStreamQuery(cudaStream_t) { return cudaSuccess; }
cudaError_t cudaStreamWaitEvent(cudaStream_t, cudaEvent_t, unsigned) { return cudaSuccess; }

cudaError_t cudaEventCreate(cudaEvent_t* e) { return cudaStreamCreate(reinterpret_cast<cudaStream_t*>(e)); }
cudaError_t cudaEventCreateWithFlags(cudaEvent_t* e, unsigned) { return cudaEventCreate(e); }
cudaError_t cudaEventDestroy(cudaEvent_t) { return cudaSuccess; }
cudaError_t cudaEventRecord(cudaEvent_t, cudaStream_t) { return cudaSuccess; }
cudaError_t cudaEventSynchronize(cudaEvent_t) { return cudaSuccess; }
cudaError_t cudaEventQuery(cudaEvent_t) { return cudaSuccess; }
// Timing has no meaning in the model: every interval measures 1 microsecond.
cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t, cudaEvent_t) {
  *ms = 0.001f;
  return cudaSuccess;
}

cudaError_t cudaFuncSetAttribute(const void*, cudaFuncAttribute, int) { return cudaSuccess; }
cudaError_t cudaFuncSetCacheConfig(const void*, cudaFuncCache) { return cudaSuccess; }
cudaError_t cudaFuncGetAttributes(cudaFuncAttributes* a, const void*) {
  std::memset(a, 0, sizeof *a);
  a->maxThreadsPerBlock = 1024;
  a->numRegs = 32;
  a->ptxVersion = a->binaryVersion = 90;
  a->maxDynamicSharedSizeBytes = kSharedOptin;
  return cudaSuccess;
}
cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int* blocks, const void*, int, size_t) {
  *blocks = 1;
  return cudaSuccess;
}
cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int* blocks, const void*, int,
                                                                   size_t, unsigned) {
  *blocks = 1;
  return cudaSuccess;
}
cudaError_t cudaOccupancyMaxActiveClusters(int* clusters, const void*, const cudaLaunchConfig_t* config) {
  int size = 1;  // one CTA per SM: the cluster shape the query names
  for (unsigned i = 0; config != nullptr && i < config->numAttrs; ++i)
    if (config->attrs[i].id == cudaLaunchAttributeClusterDimension) {
      const auto& d = config->attrs[i].val.clusterDim;
      size = static_cast<int>(d.x * d.y * d.z);
    }
  *clusters = std::max(1, sms() / std::max(size, 1));
  return cudaSuccess;
}

}  // extern "C"
