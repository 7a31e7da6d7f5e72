// Helpers for the PTX front-end tests: build a "ptx/..." kernel from a file
// or from PTX text, and run it in-process.
#pragma once
#include <map>
#include <cstdint>
#include <string>
#include <vector>

#include "checker/explore/explorer.hpp"

namespace heddle::test {

/// A PTX launch: the file, its entry, threads per CTA and the --arg specs.
struct PtxLaunch {
  std::string file;
  std::string kernel;
  int threads = 32;
  std::string args;  // space-separated NAME=SPEC
  int ctas = 1;
  int smem = 0;  // --smem: dynamic shared memory bytes
  std::string cluster = "";  // --cluster X[,Y,Z] ("": none)
  std::string grid = "";     // --grid X[,Y,Z] when not 1-d ("": `ctas`)
  bool strict = false;       // --ptx-strict
};

/// The front end's parameter values for `l` (what `heddle run --ptx` passes).
std::map<std::string, std::string> ptx_values(const PtxLaunch& l);
/// Builds (registers) the kernel of `l` and returns its name ("ptx/ENTRY").
std::string build_ptx(const PtxLaunch& l);
/// Builds and explores `l` under `config`.
RunResult run_ptx(const PtxLaunch& l, RunConfig config = {});
/// Little-endian hex of 32-bit values, as a final state prints a small buffer.
std::string u32_hex(const std::vector<std::uint32_t>& values);
/// The one final state of `l`, whose every execution must verify.
std::string final_out(const PtxLaunch& l);
/// Writes `text` to a fresh temporary .ptx file and returns its path.
std::string write_ptx(const std::string& text);
/// A module with one entry `name` taking u64 parameters `params` (NAME_param),
/// loaded into %rd1, %rd2, ... in order; %p<4>, %r<16>, %rd<16>, %rs<4>
/// declared; `directives` follow the parameter list.
std::string ptx_entry(const std::string& name, const std::string& body,
                      const std::vector<std::string>& params = {"out"},
                      const std::string& directives = "");
/// Little-endian hex of u32 values, as the front end observes a buffer.
std::string u32_hex(const std::vector<std::uint32_t>& values);
/// The one final state of every execution of `l`, which must all be ok.
std::string final_out(const PtxLaunch& l);
/// The 1-based line of `marker` in `text`.
long line_of(const std::string& text, const std::string& marker);
/// The path of committed PTX file `name` in test/ptx/data.
std::string ptx_data(const std::string& name);

}  // namespace heddle::test
