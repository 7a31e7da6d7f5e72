#include "test/ptx/ptx_support.hpp"

#include <fmt/format.h>

#include <fstream>

#include "test/support/harness.hpp"

namespace heddle::test {

std::map<std::string, std::string> ptx_values(const PtxLaunch& l) {
  return {{"file", l.file}, {"kernel", l.kernel}, {"grid", std::to_string(l.ctas)},
          {"block", std::to_string(l.threads)}, {"args", l.args}};
}

std::string build_ptx(const PtxLaunch& l) {
  for (const FrontEnd& fe : front_ends())
    if (fe.name == "ptx") return build_kernel(fe, ptx_values(l)).name;
  throw std::logic_error("the ptx front end is not registered");
}

RunResult run_ptx(const PtxLaunch& l, RunConfig config) {
  return run(build_ptx(l), ptx_values(l), config);
}

std::string write_ptx(const std::string& text) {
  std::string path = temp_dir() + "/kernel.ptx";
  std::ofstream(path) << text;
  return path;
}

std::string ptx_data(const std::string& name) {
  return fmt::format("{}/test/ptx/data/{}", HEDDLE_SOURCE_ROOT, name);
}

}  // namespace heddle::test
