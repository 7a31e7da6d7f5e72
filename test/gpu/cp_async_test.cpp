// Ampere cp.async (PTX ISA §9.7.9.24): copies complete after their issue,
// in the generic proxy; cp.async-groups and cp.async.mbarrier.arrive order
// them; src-size below cp-size zero-fills.
#include <catch2/catch.hpp>

#include "test/support/harness.hpp"
#include "test/support/presets.hpp"

using namespace heddle;

TEST_CASE("cp.async pipeline: every preset has its verdict, values and zero-fill checked",
          "[gpu][cp_async]") {
  const Kernel& k = find_kernel("ampere/cp_async_pipeline");
  REQUIRE(k.presets.size() == 4);
  for (const Preset& p : k.presets) {
    for (const std::string strategy : {"dfs", "dpor"}) {
      if (strategy == "dfs" && p.expect == Verdict::ok) continue;  // wgmma_test.cpp compares
      INFO(p.name << " " << strategy);
      RunConfig c;
      c.strategy = strategy;
      RunResult r = test::run(k.name, p.params, c);
      CHECK(r.verdict == p.expect);
      if (p.expect == Verdict::ok) CHECK(r.exhaustive);
      if (!r.schedule) continue;
      CHECK(r.bug->accesses.size() == 2);
      test::check_replay(r);
    }
  }
  // Three and four stages, more tiles: still correct by group depth.
  CHECK(test::run(k.name, {{"stages", "3"}, {"k_tiles", "5"}}).verdict == Verdict::ok);
  CHECK(test::run(k.name, {{"stages", "3"}, {"k_tiles", "5"}, {"variant", "mbarrier"}}).verdict ==
        Verdict::ok);
  // One group too few, at any depth, is a race on the stage read.
  CHECK(test::run(k.name, {{"stages", "3"}, {"k_tiles", "4"}, {"variant", "wait_depth"}}).verdict ==
        Verdict::race);
}
