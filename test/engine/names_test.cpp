// Agent names are unique in an execution: a taken name gets "#k", the
// smallest k >= 2 that no agent has, whether the name came as a literal,
// a built string or a view.
#include <catch2/catch.hpp>

#include <string>
#include <string_view>
#include <vector>

#include "checker/engine/fiber.hpp"
#include "checker/explore/run.hpp"
#include "checker/heddle.hpp"

using namespace heddle;

namespace {
const auto same_names = kernel("test/same_names", "threads and a copy that share names")
    .body([](const Params&) {
      auto& flag = make<Atomic<int>>(std::string_view("flag"), 0);
      const std::string w = "w";
      spawn(w, [] {});
      spawn("w", [] {});
      spawn("w#3", [] {});  // taken by no one yet: kept
      spawn(std::string("w"), [] {});  // w, w#2 and w#3 taken
      issue("w", {phase("signal", {touches(flag, true)}, [&flag] { flag.store(1); })});
      spawn(std::string_view("x"), [] {});
    });
}  // namespace

TEST_CASE("a taken agent name gets the smallest free #k", "[engine]") {
  FaultHandlers handlers;
  StackPool pool(256 * 1024);
  RunConfig c;
  c.strategy = "dfs";
  auto strategy = make_strategy(c);
  REQUIRE(strategy->begin_execution());
  Execution ex(ExecutionLimits{}, pool);
  const Params none;
  const Model model(find_kernel("test/same_names"), none, ExecutionLimits{});
  CHECK(run_execution(model, *strategy, ex) == Ending::complete);
  std::vector<std::string> names;
  for (const auto& a : ex.agents()) names.push_back(a->name);
  CHECK(names == std::vector<std::string>{"w", "w#2", "w#3", "w#4", "w#5", "x"});
  REQUIRE(ex.object_count() == 1);
  CHECK(ex.object_name(ObjectId{0}) == "flag");
}
