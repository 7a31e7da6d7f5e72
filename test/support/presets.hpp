// Test helper: a registered kernel's presets run to their expected verdicts,
// and each counterexample replays to the same report (checker/DESIGN.md
// § Checking the checker: replay).
#pragma once
#include <catch2/catch.hpp>

#include <string>

#include "test/support/harness.hpp"

namespace heddle::test {

/// Replays r's schedule (when it has one) and checks the same report comes back.
inline void check_replay(const RunResult& r) {
  if (!r.schedule) return;
  RunResult again = replay(*r.schedule);
  REQUIRE(again.bug);
  CHECK(report_to_json(*again.bug) == r.schedule->bug);
}

/// Runs every preset of `kernel` under `config`: its verdict, exhaustive
/// when ok, and the replay round trip of its counterexample.
inline void check_presets(const std::string& kernel, const RunConfig& config = {}) {
  const Kernel& k = find_kernel(kernel);
  for (const Preset& p : k.presets) {
    INFO(kernel << " " << p.name << " " << config.strategy);
    RunResult r = run(k.name, p.params, config);
    CHECK(r.verdict == p.expect);
    if (p.expect == Verdict::ok) CHECK(r.exhaustive);
    check_replay(r);
  }
}

}  // namespace heddle::test
