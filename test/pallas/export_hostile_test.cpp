// Hostile Pallas exports (issue 51.2, 51.5): each is an input error naming
// the field at fault (exit 2), never a crash, a runaway or a verdict.
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <chrono>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>

#include "checker/engine/errors.hpp"
#include "test/support/harness.hpp"

using namespace heddle;
using nlohmann::json;

namespace {
std::string data(const std::string& name) {
  return fmt::format("{}/test/pallas/data/{}.json", HEDDLE_SOURCE_ROOT, name);
}

// A copy of export `name` with `edit` applied; its path.
std::string edited(const std::string& name, const std::function<void(json&)>& edit) {
  std::ifstream in(data(name));
  auto j = json::parse(in);
  edit(j);
  std::string path = test::temp_dir() + "/" + name + ".json";
  std::ofstream(path) << j.dump();
  return path;
}

// `depth` closed_calls, each calling the next; the innermost is empty.
json nested_calls(int depth) {
  json inner = {{"invars", json::array()}, {"outvars", json::array()}, {"eqns", json::array()}};
  for (int d = 0; d < depth; ++d) {
    json call = {{"prim", "closed_call"}, {"in", json::array()}, {"out", json::array()},
                 {"params", {{"call_jaxpr", {{"jaxpr", std::move(inner)}}}}}};
    inner = {{"invars", json::array()}, {"outvars", json::array()},
             {"eqns", json::array({std::move(call)})}};
  }
  return inner["eqns"][0];
}
}  // namespace

TEST_CASE("pallas: hostile exports are input errors naming the field", "[pallas][hostile]") {
  struct Damage {
    const char* expect;
    std::function<void(json&)> edit;
  };
  const std::vector<Damage> damages = {
      {"dimension_semantics has 3 entries for a grid of rank 1",
       [](json& j) { j["grid_mapping"]["dimension_semantics"] = {"parallel", "arbitrary", "parallel"}; }},
      {"dimension_semantics \"sideways\" is not one of",
       [](json& j) { j["grid_mapping"]["dimension_semantics"] = {"sideways"}; }},
      {"input_output_aliases names input 0 or output 0 twice",
       [](json& j) { j["input_output_aliases"] = {{0, 0}, {0, 0}}; }},
      {"input_output_aliases (0, 0): input int32 [12] and output float32 [12] differ",
       [](json& j) {
         j["outputs"][0]["dtype"] = "float32";
         j["input_output_aliases"] = {{0, 0}};
       }},
      {"uses variable 2 as a ref, but it is a value",
       [](json& j) { j["kernel"]["eqns"][0]["in"][0].erase("ref"); }},
      {"nest deeper than heddle's limit of 64 levels",
       [](json& j) { j["kernel"]["eqns"].insert(j["kernel"]["eqns"].begin(), nested_calls(70)); }},
  };
  for (const auto& d : damages) {
    INFO(d.expect);
    auto path = edited("double_buffered", d.edit);
    const auto start = std::chrono::steady_clock::now();
    auto r = test::cli(fmt::format("run -q --pallas '{}'", path));
    INFO(r.out << r.err);
    CHECK(r.code == 2);
    CHECK_THAT(r.err, Catch::Contains(d.expect));
    CHECK(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() < 10);
  }
  // 5,000 nested calls (before: 8 GB, then an abort), written as text: the
  // test's own JSON library would recurse that deep.
  std::string deep;
  for (int d = 0; d < 5000; ++d)
    deep += R"({"prim": "closed_call", "in": [], "out": [], "params": {"call_jaxpr": {"jaxpr": )"
            R"({"invars": [], "outvars": [], "eqns": [)";
  for (int d = 0; d < 5000; ++d) deep += "]}}}}";
  std::string text = json::parse(std::ifstream(data("double_buffered"))).dump();
  const std::string eqns = R"("eqns":[)";
  const auto at = text.find(eqns, text.find(R"("kernel":)"));
  REQUIRE(at != std::string::npos);
  text.insert(at + eqns.size(), deep + ",");
  const std::string deep_path = test::temp_dir() + "/deep.json";
  std::ofstream(deep_path) << text;
  const auto start = std::chrono::steady_clock::now();
  auto r = test::cli(fmt::format("run -q --pallas '{}'", deep_path));
  INFO(r.err);
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Catch::Contains("JSON nested deeper than 1024 levels (sub-jaxprs nest at most "
                                    "64 deep)"));
  CHECK(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() < 10);
  // Within the limit, nesting is fine: 60 empty calls change nothing.
  auto ok = test::cli(fmt::format(
      "run -q --pallas '{}'", edited("double_buffered", [](json& j) {
        j["kernel"]["eqns"].insert(j["kernel"]["eqns"].begin(), nested_calls(60));
      })));
  INFO(ok.out << ok.err);
  CHECK(ok.code == 0);
}
