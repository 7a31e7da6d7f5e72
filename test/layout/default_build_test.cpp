// The default build is what an install needs (issue 50.1): the CLI, the
// libraries and the CUDA runtime stand-ins. Tests, their fixtures and
// benchmarks are built by the `tests` and `benchmarks` aliases only, so a
// new test target left in the default build fails here.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <set>
#include <string>

#include "test/ci/ci_support.hpp"

using heddle::test::run_binary;

TEST_CASE("the default build holds what an install needs, and the aliases the rest", "[layout]") {
  const std::string text = run_binary("meson", "introspect --targets '" HEDDLE_BUILD_ROOT "'").out;
  if (text.empty()) {
    WARN("skipped: meson introspect is not available");
    return;
  }
  std::set<std::string> by_default, aliases, tests;
  for (const auto& target : nlohmann::json::parse(text)) {
    const std::string name = target.at("name");
    if (target.at("type") == "run") aliases.insert(name);
    if (target.at("build_by_default").get<bool>()) by_default.insert(name);
  }
  // cudart and cuda (models/cuda/lib) exist where the CUDA headers were found.
  const std::set<std::string> install = {"heddle", "heddle_models", "heddle_main", "heddle_kernels",
                                         "cudart", "cuda"};
  for (const auto& name : by_default) {
    INFO("built by default: " << name);
    CHECK(install.count(name) == 1);
  }
  for (const auto* name : {"heddle", "heddle_models", "heddle_main", "heddle_kernels"})
    CHECK(by_default.count(name) == 1);
  CHECK(aliases == std::set<std::string>{"tests", "benchmarks"});
}
