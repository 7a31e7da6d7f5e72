#include "test/ptx/ptx_support.hpp"

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <set>

#include "test/support/harness.hpp"

namespace heddle::test {

std::map<std::string, std::string> ptx_values(const PtxLaunch& l) {
  return {{"file", l.file}, {"kernel", l.kernel}, {"grid", l.grid.empty() ? std::to_string(l.ctas) : l.grid},
          {"block", std::to_string(l.threads)}, {"cluster", l.cluster}, {"args", l.args},
          {"smem", std::to_string(l.smem)}, {"strict", l.strict ? "true" : ""}};
}

std::string build_ptx(const PtxLaunch& l) {
  for (const FrontEnd& fe : front_ends())
    if (fe.name == "ptx") return build_kernel(fe, ptx_values(l)).name;
  throw std::logic_error("the ptx front end is not registered");
}

RunResult run_ptx(const PtxLaunch& l, RunConfig config) {
  return run(build_ptx(l), ptx_values(l), config);
}

std::string u32_hex(const std::vector<std::uint32_t>& values) {
  std::string hex;
  for (std::uint32_t v : values)
    for (int b = 0; b < 4; ++b) hex += fmt::format("{:02x}", (v >> (8 * b)) & 0xff);
  return hex;
}

std::string final_out(const PtxLaunch& l) {
  Outcomes o = outcomes(build_ptx(l), ptx_values(l), RunConfig{});
  REQUIRE(o.verdicts == std::set<std::string>{"ok"});
  REQUIRE(o.final_states.size() == 1);
  return *o.final_states.begin();
}

std::string write_ptx(const std::string& text) {
  std::string path = temp_dir() + "/kernel.ptx";
  std::ofstream(path) << text;
  return path;
}

std::string ptx_entry(const std::string& name, const std::string& body,
                      const std::vector<std::string>& params, const std::string& directives) {
  std::string decls, loads;
  for (std::size_t i = 0; i < params.size(); ++i) {
    decls += fmt::format("{}.param .u64 {}_param", i ? ", " : "", params[i]);
    loads += fmt::format("  ld.param.u64 %rd{}, [{}_param];\n", i + 1, params[i]);
  }
  return fmt::format(R"(.version 8.0
.target sm_90a
.address_size 64
.visible .entry {}({}){}
{{
  .reg .pred %p<4>;
  .reg .b16 %rs<4>;
  .reg .b32 %r<16>;
  .reg .b64 %rd<16>;
{}{}
}}
)",
                     name, decls, directives, loads, body);
}

long line_of(const std::string& text, const std::string& marker) {
  return 1 + std::count(text.begin(), text.begin() + static_cast<long>(text.find(marker)), '\n');
}

std::string ptx_data(const std::string& name) {
  return fmt::format("{}/test/ptx/data/{}", HEDDLE_SOURCE_ROOT, name);
}

}  // namespace heddle::test
