// The entry points nvcc's generated host code calls: module and kernel
// registration at program start, and the <<<...>>> launch sequence (push
// the call configuration, the stub pops it and calls __cudaLaunchKernel).
#include <fmt/format.h>

#include <vector>

#include "models/cuda/launch.hpp"
#include "models/cuda/lib/api.hpp"
#include "models/cuda/modules.hpp"
#include "models/cuda/session.hpp"

using namespace heddle::cuda;

namespace {

struct CallConfig {
  dim3 grid, block;
  std::size_t shared = 0;
  void* stream = nullptr;
};
std::vector<CallConfig> configs;  // <<<...>>> nests when an argument launches

}  // namespace

namespace heddle::cuda {

cudaError_t launch_stub(const void* stub, dim3 grid, dim3 block, void** args, std::size_t shared,
                        const dim3* cluster) {
  return guarded([&] {
    if (grid.x * grid.y * grid.z == 0 || block.x * block.y * block.z == 0)
      return cudaErrorInvalidConfiguration;
    if (block.x * block.y * block.z > 1024) return cudaErrorInvalidConfiguration;
    LaunchRequest rq;
    rq.kernel = &kernel_for(stub);
    rq.grid = {static_cast<int>(grid.x), static_cast<int>(grid.y), static_cast<int>(grid.z)};
    rq.block = {static_cast<int>(block.x), static_cast<int>(block.y), static_cast<int>(block.z)};
    if (cluster != nullptr)
      rq.cluster = {static_cast<int>(cluster->x), static_cast<int>(cluster->y), static_cast<int>(cluster->z)};
    rq.dynamic_shared = shared;
    rq.args = args;
    run_launch(rq);
    return cudaSuccess;
  });
}

}  // namespace heddle::cuda

extern "C" {

void** __cudaRegisterFatBinary(void* fatCubin) {
  options();  // bad options end the program before main
  return reinterpret_cast<void**>(register_module(fatCubin));
}

void __cudaRegisterFatBinaryEnd(void**) {}
void __cudaUnregisterFatBinary(void**) {}
char __cudaInitModule(void**) { return 1; }

void __cudaRegisterFunction(void** handle, const char* hostFun, char*, const char* deviceName, int,
                            uint3*, uint3*, dim3*, dim3*, int*) {
  register_kernel(reinterpret_cast<DeviceModule*>(handle), hostFun, deviceName);
}

void __cudaRegisterVar(void**, char* hostVar, char*, const char* deviceName, int, size_t size, int,
                       int) {
  register_variable(hostVar, deviceName, size);
}

unsigned __cudaPushCallConfiguration(dim3 grid, dim3 block, size_t shared, void* stream) {
  configs.push_back({grid, block, shared, stream});
  return 0;
}

cudaError_t __cudaPopCallConfiguration(dim3* grid, dim3* block, size_t* shared, void* stream) {
  if (configs.empty()) return cudaErrorMissingConfiguration;
  CallConfig c = configs.back();
  configs.pop_back();
  *grid = c.grid;
  *block = c.block;
  *shared = c.shared;
  *static_cast<void**>(stream) = c.stream;
  return cudaSuccess;
}

cudaError_t __cudaGetKernel(cudaKernel_t* kernel, const void* stub) {
  *kernel = reinterpret_cast<cudaKernel_t>(const_cast<void*>(stub));
  return cudaSuccess;
}

cudaError_t __cudaLaunchKernel(cudaKernel_t kernel, dim3 grid, dim3 block, void** args,
                               size_t shared, cudaStream_t) {
  return launch_stub(reinterpret_cast<const void*>(kernel), grid, block, args, shared, nullptr);
}

cudaError_t __cudaLaunchKernel_ptsz(cudaKernel_t kernel, dim3 grid, dim3 block, void** args,
                                    size_t shared, cudaStream_t stream) {
  return __cudaLaunchKernel(kernel, grid, block, args, shared, stream);
}

cudaError_t cudaLaunchKernel(const void* func, dim3 grid, dim3 block, void** args, size_t shared,
                             cudaStream_t) {
  return launch_stub(func, grid, block, args, shared, nullptr);
}

cudaError_t cudaLaunchKernelExC(const cudaLaunchConfig_t* config, const void* func, void** args) {
  const dim3* cluster = nullptr;
  for (unsigned i = 0; i < config->numAttrs; ++i) {
    const cudaLaunchAttribute& a = config->attrs[i];
    if (a.id == cudaLaunchAttributeClusterDimension)
      cluster = reinterpret_cast<const dim3*>(&a.val.clusterDim);
  }
  return launch_stub(func, config->gridDim, config->blockDim, args, config->dynamicSmemBytes, cluster);
}

}  // extern "C"
