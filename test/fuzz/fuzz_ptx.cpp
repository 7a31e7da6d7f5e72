// libFuzzer harness: the PTX front end (untrusted input: PTX files from any
// nvcc, or edited by hand). The input is PTX text; an optional first line
// "//@ GRID BLOCK ARG..." gives the launch (--grid, --block, --arg values),
// otherwise each parameter gets a small buffer, tensormap or u32 by its type.
// Parsing, decoding and building the launch must succeed or throw
// UsageError; a kernel that builds is explored a few bounded executions,
// whose bugs must be reports, not exceptions or faults (fuzz_run.hpp).
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <sstream>
#include <string>

#include "checker/engine/errors.hpp"
#include "checker/registry.hpp"
#include "models/ptx/syntax.hpp"
#include "test/fuzz/fuzz_run.hpp"

namespace {
using namespace heddle;

const FrontEnd& ptx_front_end() {
  for (const FrontEnd& fe : front_ends())
    if (fe.name == "ptx") return fe;
  std::abort();  // the front end's registration was not linked
}

// Arguments for `f`'s parameters as `heddle run --ptx` takes them.
std::string default_args(const ptx::Function& f) {
  std::string args;
  for (const auto& p : f.params) {
    if (p.count > 0)
      args += p.name + "=tensormap:t_" + p.name + ",shape=64x2,box=32x1 ";
    else if (p.type == ".u64" || p.type == ".b64" || p.type == ".s64")
      args += p.name + "=buffer:256 ";
    else
      args += p.name + "=u32:2 ";
  }
  return args;
}

// The launch values for entry `f`: from a "//@ GRID BLOCK ARG..." line, or defaults.
std::map<std::string, std::string> launch_values(const std::string& text, const ptx::Function& f,
                                                 const std::string& file) {
  std::map<std::string, std::string> v{{"file", file}, {"kernel", f.name}, {"grid", "1"},
                                       {"block", "64"}, {"args", default_args(f)}};
  if (text.rfind("//@ ", 0) == 0) {
    std::istringstream line(text.substr(4, text.find('\n') - 4));
    std::string grid, block, rest, a;
    line >> grid >> block;
    while (line >> a) rest += a + " ";
    v["grid"] = grid;
    v["block"] = block;
    v["args"] = rest;
  }
  return v;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  ptx::Module m;
  try {
    m = ptx::parse(text, "fuzz.ptx");
  } catch (const UsageError& e) {
    fuzz::note(e.what());
    return 0;  // a syntax error, with its position: the expected outcome for most inputs
  }
  const std::string file = fuzz::scratch_file(text, ".ptx");
  for (const ptx::Function& f : m.functions) {
    if (!f.entry) continue;
    auto values = launch_values(text, f, file);
    const Kernel* k = nullptr;
    try {
      k = &build_kernel(ptx_front_end(), values);  // parse again, decode, check the launch
    } catch (const UsageError& e) {
      fuzz::note(e.what());
      continue;
    }
    try {
      fuzz::require_clear_result(explore(*k, k->resolve(values), fuzz::bounded_config()));
    } catch (const UsageError& e) {
      fuzz::note(e.what());
    }
    break;  // one entry explored per input keeps each run short
  }
  unlink(file.c_str());
  return 0;
}
