// libFuzzer harness: --param values. Each input line is one NAME=VALUE for
// a kernel with an integer, a flag and a choice parameter; resolve() must
// accept them or throw UsageError, and accepted values must read back.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <sstream>
#include <string>

#include "checker/engine/errors.hpp"
#include "checker/registry.hpp"

namespace {
const heddle::Kernel& fuzz_kernel() {
  static const auto reg = heddle::kernel("fuzz/params", "parameters to fuzz")
                              .param("n", 4, "an integer", 1, 64)
                              .param("any", -3, "an integer without a range")
                              .flag("fixed", false, "a flag")
                              .choice("order", "eager", {"eager", "on_wait"}, "a choice")
                              .body([](const heddle::Params&) {});
  return heddle::find_kernel(reg.name);
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  std::map<std::string, std::string> given;
  for (std::string line; std::getline(in, line);) {
    auto eq = line.find('=');
    if (eq == std::string::npos || eq == 0) continue;  // the CLI rejects these itself
    given[line.substr(0, eq)] = line.substr(eq + 1);
  }
  const heddle::Kernel& k = fuzz_kernel();
  try {
    heddle::Params p = k.resolve(given);
    long n = p.get_int("n");
    if (n < 1 || n > 64) std::abort();  // a value outside its declared range was accepted
    (void)p.get_int("any");
    (void)p.get_bool("fixed");
    const std::string& order = p.get("order");
    if (order != "eager" && order != "on_wait") std::abort();
  } catch (const heddle::UsageError&) {
  }
  return 0;
}
