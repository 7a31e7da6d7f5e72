// The launch's --arg values checked against the kernel's parameters before
// any execution (issue 50, item 14): a mistake is a usage error (exit 2)
// naming the parameter and its PTX line, never a 0-step model error.
#include <fmt/format.h>

#include <set>

#include "models/ptx/launch.hpp"

namespace heddle::ptx {
namespace {

// nvcc names parameters KERNEL_param_N: the user cannot be expected to spell them.
bool generated(const std::string& param) { return param.find("_param_") != std::string::npos; }

void check_name(const Program& p, std::size_t i, const ArgSpec& a) {
  const Symbol& s = p.symbols[static_cast<std::size_t>(p.params[i])];
  if (a.name == s.name || s.name.rfind(a.name + "_", 0) == 0 || generated(s.name)) return;
  for (std::size_t j = 0; j < p.params.size(); ++j)
    if (p.symbols[static_cast<std::size_t>(p.params[j])].name == a.name)
      throw UsageError(fmt::format("--arg {} is given as argument {} but names parameter {} of "
                                   "kernel {} ({}:{}): give the --arg values in parameter order",
                                   a.name, i + 1, j + 1, p.kernel, p.ptx_path,
                                   p.symbols[static_cast<std::size_t>(p.params[j])].line));
  throw UsageError(fmt::format("--arg {}: parameter {} of kernel {} is named {} ({}:{}); name the "
                               "argument so",
                               a.name, i + 1, p.kernel, s.name, p.ptx_path, s.line));
}

void check_value(const Program& p, const Symbol& s, const ArgSpec& a) {
  auto fail = [&](const std::string& why) {
    throw UsageError(fmt::format("--arg {}: {} (parameter {} of kernel {}, {}:{})", a.name, why,
                                 s.name, p.kernel, p.ptx_path, s.line));
  };
  const bool array = s.type.kind == Type::Kind::none || s.bytes != 8;  // .b8 name[N]
  const int bytes = array ? 0 : s.type.bytes;
  if (a.kind == ArgSpec::Kind::bytes) {
    if (a.data.size() > s.bytes) fail(fmt::format("{} bytes given, the parameter has {}", a.data.size(), s.bytes));
    return;
  }
  if (a.kind == ArgSpec::Kind::scalar) {
    if (array) fail("a scalar for an array (struct) parameter");
    if (bytes < 8 && (a.value >> (8 * bytes)) != 0 && a.scalar_bytes == 8)
      fail(fmt::format("{} does not fit the parameter's {} bytes", a.value, bytes));
    return;
  }
  if (a.kind == ArgSpec::Kind::tensormap && array && s.bytes == 128) return;  // __grid_constant__ CUtensorMap
  if (array || bytes != 8) fail("a pointer needs a 64-bit parameter (.u64 or .b64)");
}

}  // namespace

void check_args(const Program& p, const std::vector<ArgSpec>& args) {
  if (args.size() != p.params.size())
    throw UsageError(fmt::format("kernel {} takes {} parameters; give one --arg for each, in order",
                                 p.kernel, p.params.size()));
  std::set<std::string> names;
  std::map<std::string, const ArgSpec*> buffers;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const ArgSpec& a = args[i];
    if (!names.insert(a.name).second)
      throw UsageError(fmt::format("--arg {} is given twice", a.name));
    check_name(p, i, a);
    check_value(p, p.symbols[static_cast<std::size_t>(p.params[i])], a);
    if (a.kind == ArgSpec::Kind::buffer) buffers[a.name] = &a;
  }
  for (const ArgSpec& a : args) {
    if (a.kind != ArgSpec::Kind::tensormap) continue;
    if (names.count(a.tensor) != 0 && buffers.count(a.tensor) == 0)
      throw UsageError(fmt::format("--arg {}: {} is not a buffer argument", a.name, a.tensor));
    const std::uint64_t need = std::uint64_t{a.shape[0]} * a.shape[1] * a.elem;
    if (a.shape[0] % a.box[0] != 0 || a.shape[1] % a.box[1] != 0)
      throw UsageError(fmt::format("--arg {}: the box {}x{} does not tile the shape {}x{}", a.name,
                                   a.box[0], a.box[1], a.shape[0], a.shape[1]));
    if (auto b = buffers.find(a.tensor); b != buffers.end() && b->second->bytes < need)
      throw UsageError(fmt::format("--arg {}: a {}x{} tensor of {}-byte elements does not fit in "
                                   "buffer {} ({} bytes)",
                                   a.name, a.shape[0], a.shape[1], a.elem, a.tensor, b->second->bytes));
  }
}

std::uint32_t parse_smem(const std::string& text) {
  std::size_t used = 0;
  unsigned long long v = 0;
  try {
    v = std::stoull(text, &used, 0);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != text.size() || text[0] == '-' || v > (1u << 20))
    throw UsageError(fmt::format("--smem {}: expected a number of bytes from 0 to 1048576", text));
  return static_cast<std::uint32_t>(v);
}

}  // namespace heddle::ptx
