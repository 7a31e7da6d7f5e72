// What a program registers with the runtime: its device code (one module
// per fatbinary), its kernels (host stub -> PTX entry) and __device__ variables.
#pragma once
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "models/ptx/program.hpp"
#include "models/ptx/syntax.hpp"

namespace heddle::cuda {

/// One fatbinary's PTX, parsed once.
struct DeviceModule {
  const void* wrapper = nullptr;  // what __cudaRegisterFatBinary received
  std::string ptx;                // the PTX text (empty: the module has none)
  std::string error;              // why there is no PTX (said when a kernel of it is launched)
  std::unique_ptr<ptx::Module> parsed;
};

/// A registered kernel: its host stub and PTX entry, decoded on first launch.
struct KernelEntry {
  const void* stub = nullptr;
  std::string mangled;             // the PTX entry name
  std::string name;                // demangled, without parameters ("add", "ns::k<float>")
  std::string signature;           // demangled in full ("add(int*, int, float)")
  DeviceModule* module = nullptr;
  std::shared_ptr<const ptx::Program> program;  // decoded on first launch
  /// The program decoded for a launch's dynamic shared memory, by its bytes.
  std::map<std::uint32_t, std::shared_ptr<const ptx::Program>> with_dynamic_shared;
  std::vector<std::size_t> param_bytes;         // each parameter's size (from its .param)
};

/// Registers a fatbinary; PTX is extracted now, errors kept for launch time.
DeviceModule* register_module(const void* wrapper);
/// Registers kernel `mangled` of `module` under host stub `stub`.
void register_kernel(DeviceModule* module, const void* stub, const char* mangled);
/// The kernel of host stub `stub`, decoded; UsageError when unknown or without PTX.
KernelEntry& kernel_for(const void* stub);
/// Kernel `k` decoded for a launch with `dynamic_shared` bytes of dynamic
/// shared memory (its `extern .shared` array sized by the launch).
std::shared_ptr<const ptx::Program> program_for(KernelEntry& k, std::uint32_t dynamic_shared);
/// A __device__ variable: host shadow address -> device block base.
void register_variable(const void* host, std::string name, std::size_t bytes);
/// The device address of the variable whose host shadow is `host` (0: none).
std::uint64_t variable_address(const void* host, std::size_t* bytes = nullptr);

}  // namespace heddle::cuda
