#include "models/cuda/modules.hpp"

#include <cxxabi.h>
#include <fmt/format.h>

#include <cstdlib>
#include <map>

#include "checker/engine/errors.hpp"
#include "models/cuda/device_memory.hpp"
#include "models/cuda/fatbin.hpp"

namespace heddle::cuda {
namespace {

struct Registry {
  std::vector<std::unique_ptr<DeviceModule>> modules;
  std::map<const void*, KernelEntry> kernels;
  std::map<const void*, std::pair<std::uint64_t, std::size_t>> variables;
};

Registry& registry() {
  static Registry r;
  return r;
}

std::string demangle(const std::string& mangled) {
  int status = 0;
  char* text = abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status);
  if (status != 0 || text == nullptr) return mangled;  // extern "C" kernels
  std::string out = text;
  std::free(text);
  return out;
}

// "ns::k<float>(int*, int)" -> "ns::k<float>": the name before the
// parameter list (the last top-level '(').
std::string short_name(const std::string& signature) {
  int depth = 0;
  for (std::size_t i = 0; i < signature.size(); ++i) {
    char c = signature[i];
    if (c == '<') ++depth;
    else if (c == '>') --depth;
    else if (c == '(' && depth == 0) return signature.substr(0, i);
  }
  return signature;
}

// A .param's size in bytes: ".u32" -> 4, ".b8 name[128]" -> 128.
std::size_t param_size(const ptx::ParamDecl& d) {
  const std::string& t = d.type;
  std::size_t width = 8;
  if (t.size() >= 3) width = std::strtoul(t.c_str() + 2, nullptr, 10) / 8;
  if (t == ".pred") width = 1;
  return width * static_cast<std::size_t>(d.count > 0 ? d.count : 1);
}

void decode(KernelEntry& k) {
  DeviceModule& m = *k.module;
  if (!m.parsed) {
    if (m.ptx.empty()) throw UsageError(m.error);
    m.parsed = std::make_unique<ptx::Module>(ptx::parse(m.ptx, m.wrapper ? "kernel.ptx" : ""));
  }
  for (const ptx::Function& f : m.parsed->functions)
    if (f.name == k.mangled) {
      k.param_bytes.clear();
      for (const ptx::ParamDecl& d : f.params) k.param_bytes.push_back(param_size(d));
    }
  k.program = std::make_shared<ptx::Program>(ptx::decode(*m.parsed, k.mangled, 0, nullptr, true));
}

}  // namespace

DeviceModule* register_module(const void* wrapper) {
  auto m = std::make_unique<DeviceModule>();
  m->wrapper = wrapper;
  try {
    m->ptx = pick_ptx(read_fatbin(wrapper));
  } catch (const UsageError& e) {
    m->error = e.what();
  }
  registry().modules.push_back(std::move(m));
  return registry().modules.back().get();
}

void register_kernel(DeviceModule* module, const void* stub, const char* mangled) {
  KernelEntry k;
  k.stub = stub;
  k.mangled = mangled;
  k.signature = demangle(k.mangled);
  k.name = short_name(k.signature);
  k.module = module;
  registry().kernels[stub] = std::move(k);
}

KernelEntry& kernel_for(const void* stub) {
  auto it = registry().kernels.find(stub);
  if (it == registry().kernels.end())
    throw UsageError(fmt::format("the program launches a function at {} that no module "
                                 "registered as a kernel",
                                 stub));
  if (!it->second.program) decode(it->second);
  return it->second;
}

std::shared_ptr<const ptx::Program> program_for(KernelEntry& k, std::uint32_t dynamic_shared) {
  if (dynamic_shared == 0) return k.program;
  auto& p = k.with_dynamic_shared[dynamic_shared];
  if (!p) p = std::make_shared<ptx::Program>(ptx::decode(*k.module->parsed, k.mangled, dynamic_shared, nullptr, true));
  return p;
}

void register_variable(const void* host, std::string name, std::size_t bytes) {
  Block& b = device_memory().allocate(bytes, std::move(name));
  registry().variables[host] = {b.base, bytes};
}

std::uint64_t variable_address(const void* host, std::size_t* bytes) {
  auto it = registry().variables.find(host);
  if (it == registry().variables.end()) return 0;
  if (bytes != nullptr) *bytes = it->second.second;
  return it->second.first;
}

}  // namespace heddle::cuda
