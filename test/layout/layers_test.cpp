// The include graph keeps the layers of checker/DESIGN.md § Layers:
// no file includes a header of a layer above its own, and no two modules of
// the checker (a header with its sources) include each other, directly or
// through others. Inside the engine, DPOR and reports read executions as
// data (checker/engine/execution_record.hpp): neither reaches the
// controller or its fibers. Kernels use the checker's model API only.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

const fs::path kRoot = HEDDLE_SOURCE_ROOT;

// The layer of a repository path, or "" when the path is in none.
std::string layer_of(const std::string& path) {
  static const std::vector<std::pair<std::string, std::string>> prefixes = {
      {"checker/engine/", "engine"},   {"checker/explore/", "explore"},
      {"checker/report/", "report"},   {"checker/cli/", "cli"},
      {"checker/", "api"},             {"models/", "models"},
      {"kernels/", "kernels"}};
  for (const auto& [prefix, layer] : prefixes)
    if (path.rfind(prefix, 0) == 0) return layer;
  return "";
}

// What each layer may include besides itself.
const std::map<std::string, std::set<std::string>>& allowed() {
  static const std::map<std::string, std::set<std::string>> a = {
      {"engine", {}},
      {"api", {"engine"}},
      {"explore", {"engine", "api"}},
      {"report", {"engine", "api", "explore"}},
      {"cli", {"engine", "api", "explore", "report"}},
      {"models", {"engine", "api"}},
      {"kernels", {"engine", "api", "models"}}};
  return a;
}

// Every "..." include of every C++ file under the layered folders.
std::map<std::string, std::vector<std::string>> include_graph() {
  std::map<std::string, std::vector<std::string>> g;
  const std::regex inc(R"re(^\s*#\s*include\s*"([^"]+)")re");
  for (const char* top : {"checker", "models", "kernels"}) {
    if (!fs::exists(kRoot / top)) continue;
    for (const auto& e : fs::recursive_directory_iterator(kRoot / top)) {
      const auto ext = e.path().extension();
      if (!e.is_regular_file() || (ext != ".hpp" && ext != ".cpp" && ext != ".h")) continue;
      const std::string rel = fs::relative(e.path(), kRoot).generic_string();
      std::ifstream in(e.path());
      auto& out = g[rel];
      for (std::string line; std::getline(in, line);) {
        std::smatch m;
        if (std::regex_search(line, m, inc)) out.push_back(m[1]);
      }
    }
  }
  return g;
}

// A module is a file without its extension: foo.hpp and foo.cpp are one.
std::string module_of(const std::string& path) { return fs::path(path).replace_extension().generic_string(); }

// The first cycle found in the module graph, as a path; empty when acyclic.
std::vector<std::string> find_cycle(const std::map<std::string, std::set<std::string>>& mg) {
  std::map<std::string, int> state;  // 0 new, 1 on the stack, 2 done
  std::vector<std::string> stack;
  std::vector<std::string> cycle;
  std::function<bool(const std::string&)> visit = [&](const std::string& m) {
    state[m] = 1;
    stack.push_back(m);
    auto it = mg.find(m);
    if (it != mg.end())
      for (const auto& n : it->second) {
        if (state[n] == 1) {
          auto from = std::find(stack.begin(), stack.end(), n);
          cycle.assign(from, stack.end());
          cycle.push_back(n);
          return true;
        }
        if (state[n] == 0 && visit(n)) return true;
      }
    stack.pop_back();
    state[m] = 2;
    return false;
  };
  for (const auto& [m, _] : mg)
    if (state[m] == 0 && visit(m)) return cycle;
  return {};
}

using Graph = std::map<std::string, std::vector<std::string>>;

// The files under `prefix` that reach `header` through their includes.
std::vector<std::string> reaching(const Graph& g, const std::string& prefix,
                                  const std::string& header) {
  std::vector<std::string> out;
  for (const auto& [file, _] : g) {
    if (file.rfind(prefix, 0) != 0) continue;
    std::set<std::string> seen;
    std::vector<std::string> todo = {file};
    while (!todo.empty()) {
      auto it = g.find(todo.back());
      todo.pop_back();
      if (it == g.end()) continue;
      for (const auto& h : it->second)
        if (seen.insert(h).second) todo.push_back(h);
    }
    if (seen.count(header)) out.push_back(file);
  }
  return out;
}

// The includes of checker/ headers by files under kernels/ other than the model API.
std::vector<std::string> kernel_checker_includes(const Graph& g) {
  std::vector<std::string> out;
  for (const auto& [file, incs] : g)
    if (file.rfind("kernels/", 0) == 0)
      for (const auto& h : incs)
        if (h.rfind("checker/", 0) == 0 && h != "checker/heddle.hpp")
          out.push_back(file + " includes " + h);
  return out;
}

std::string lines(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += "  " + x + "\n";
  return s;
}

}  // namespace

TEST_CASE("layers: no file includes a header of a layer above its own") {
  const auto g = include_graph();
  REQUIRE(g.size() > 50);  // the walk found the tree
  std::vector<std::string> violations;
  for (const auto& [file, incs] : g) {
    const std::string from = layer_of(file);
    for (const auto& h : incs) {
      const std::string to = layer_of(h);
      if (to.empty() || to == from) continue;
      if (!allowed().at(from).count(to)) violations.push_back(file + " (" + from + ") includes " +
                                                               h + " (" + to + ")");
    }
  }
  INFO("violations:\n" << [&] {
    std::string s;
    for (const auto& v : violations) s += "  " + v + "\n";
    return s;
  }());
  CHECK(violations.empty());
}

TEST_CASE("layers: the checker's modules include each other acyclically") {
  const auto g = include_graph();
  std::map<std::string, std::set<std::string>> mg;
  for (const auto& [file, incs] : g)
    for (const auto& h : incs)
      if (file.rfind("checker/", 0) == 0 && g.count(h) && module_of(h) != module_of(file))
        mg[module_of(file)].insert(module_of(h));
  const auto cycle = find_cycle(mg);
  std::string path;
  for (const auto& m : cycle) path += (path.empty() ? "" : " -> ") + m;
  INFO("cycle: " << path);
  CHECK(cycle.empty());
}

TEST_CASE("layers: the checks see a violation and a cycle when there is one") {
  CHECK(layer_of("checker/engine/execution.hpp") == "engine");
  CHECK(layer_of("checker/heddle.hpp") == "api");
  CHECK(layer_of("checker/explore/dpor/pop.hpp") == "explore");
  CHECK(layer_of("models/gpu/bulk.hpp") == "models");
  CHECK_FALSE(allowed().at("engine").count("explore"));
  CHECK_FALSE(allowed().at("models").count("explore"));
  std::map<std::string, std::set<std::string>> mg = {
      {"checker/explore/explorer", {"checker/explore/minimize"}},
      {"checker/explore/minimize", {"checker/explore/follow"}},
      {"checker/explore/follow", {"checker/explore/explorer"}}};
  CHECK(find_cycle(mg).size() == 4);
  mg["checker/explore/follow"] = {"checker/explore/run"};
  CHECK(find_cycle(mg).empty());
}

TEST_CASE("layers: DPOR and reports compile without the controller and its fibers") {
  const auto g = include_graph();
  for (const char* prefix : {"checker/explore/dpor/", "checker/report/"})
    for (const char* header : {"checker/engine/fiber.hpp", "checker/engine/execution.hpp"}) {
      const auto bad = reaching(g, prefix, header);
      INFO(prefix << " files reaching " << header << ":\n" << lines(bad));
      CHECK(bad.empty());
    }
  // The strategies' view of an execution is reached (the rule is not vacuous).
  CHECK_FALSE(reaching(g, "checker/explore/dpor/", "checker/engine/execution_record.hpp").empty());
}

TEST_CASE("layers: kernels include only the checker's model API") {
  const auto bad = kernel_checker_includes(include_graph());
  INFO(lines(bad));
  CHECK(bad.empty());
}

TEST_CASE("layers: the seam rules see a file that crosses them") {
  const Graph g = {{"checker/explore/dpor/x.cpp", {"checker/explore/dpor/y.hpp"}},
                   {"checker/explore/dpor/y.hpp", {"checker/engine/execution.hpp"}},
                   {"checker/engine/execution.hpp", {"checker/engine/fiber.hpp"}},
                   {"checker/report/z.cpp", {"checker/engine/execution_record.hpp"}},
                   {"kernels/k.cpp", {"checker/heddle.hpp", "checker/engine/memory.hpp"}}};
  CHECK(reaching(g, "checker/explore/dpor/", "checker/engine/fiber.hpp").size() == 2);
  CHECK(reaching(g, "checker/report/", "checker/engine/fiber.hpp").empty());
  CHECK(kernel_checker_includes(g) ==
        std::vector<std::string>{"kernels/k.cpp includes checker/engine/memory.hpp"});
}
