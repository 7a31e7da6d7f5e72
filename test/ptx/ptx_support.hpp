// Helpers for the PTX front-end tests: build a "ptx/..." kernel from a file
// or from PTX text, and run it in-process.
#pragma once
#include <map>
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
  std::string cluster = "";  // --cluster X[,Y,Z] ("": none)
  std::string grid = "";     // --grid X[,Y,Z] when not 1-d ("": `ctas`)
};

/// The front end's parameter values for `l` (what `heddle run --ptx` passes).
std::map<std::string, std::string> ptx_values(const PtxLaunch& l);
/// Builds (registers) the kernel of `l` and returns its name ("ptx/ENTRY").
std::string build_ptx(const PtxLaunch& l);
/// Builds and explores `l` under `config`.
RunResult run_ptx(const PtxLaunch& l, RunConfig config = {});
/// Writes `text` to a fresh temporary .ptx file and returns its path.
std::string write_ptx(const std::string& text);
/// A module with one entry `name` taking u64 parameters `params` (NAME_param),
/// loaded into %rd1, %rd2, ... in order; %p<4>, %r<16>, %rd<16>, %rs<4>
/// declared; `directives` follow the parameter list.
std::string ptx_entry(const std::string& name, const std::string& body,
                      const std::vector<std::string>& params = {"out"},
                      const std::string& directives = "");
/// Little-endian hex bytes of `values` (how final states print small buffers).
std::string u32_hex(const std::vector<std::uint32_t>& values);
/// The one final state of `l`, which must verify in every execution.
std::string final_out(const PtxLaunch& l);
/// The path of committed PTX file `name` in test/ptx/data.
std::string ptx_data(const std::string& name);

}  // namespace heddle::test
