// heddle run --strategy bounded --preemption-bound K|auto from the command
// line: what the report says about the bound, and usage errors.
#include <catch2/catch.hpp>

#include "test/support/harness.hpp"

using heddle::test::cli;

namespace {
bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}
const std::string kRing = "classic/philosophers -p n=3 -p order=ring --strategy bounded";
}  // namespace

TEST_CASE("a fixed bound reports what it explored, never verified", "[bounded]") {
  // The ring deadlock needs one preemption: P1 takes fork 1, P0 preempts it
  // and takes fork 0; then P0 blocks, P2 runs for free, takes fork 2, blocks.
  auto r = cli("run " + kRing + " --preemption-bound 0");
  INFO(r.out << r.err);
  CHECK(r.code == 0);
  CHECK(has(r.out, "explored all executions with at most 0 preemptions (bound 0)"));
  CHECK(has(r.out, "not exhaustive: preemption bound reached"));
  CHECK(!has(r.out, "verified"));
}

TEST_CASE("auto bounding finds the ring deadlock with one preemption", "[bounded]") {
  std::string dir = heddle::test::temp_dir();
  auto r = cli("run " + kRing + " --preemption-bound auto --out " + dir + "/cex.json");
  INFO(r.out << r.err);
  CHECK(r.code == 1);
  CHECK(has(r.out, "deadlock"));
  CHECK(has(r.out, "no bug in any execution with at most 0 preemptions; found with bound 1 (auto)"));
  CHECK(has(r.out, "1 preemption (minimized from"));
  auto replay = cli("replay " + dir + "/cex.json");
  CHECK(replay.code == 1);
  CHECK(has(replay.out, "deadlock"));
}

TEST_CASE("--preemption-bound usage errors say what to do", "[bounded]") {
  auto bad = cli("run " + kRing + " --preemption-bound lots");
  CHECK(bad.code == 2);
  CHECK(has(bad.err, "expected a number of preemptions (0, 1, 2, ...) or auto"));
  auto other = cli("run classic/readers --preemption-bound 1");
  CHECK(other.code == 2);
  CHECK(has(other.err, "add --strategy bounded"));
}
