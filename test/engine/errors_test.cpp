// Deadlocks, livelocks and misbehaving models are reported, never crash heddle.
#include <catch2/catch.hpp>

#include "test/support/harness.hpp"
#include "test/support/mentions.hpp"

using namespace heddle;
using heddle::test::run;
using heddle::test::source_line;

namespace {
using test::mentions;
}  // namespace

TEST_CASE("opposite lock orders deadlock, naming both blocked operations") {
  auto r = run("test/two_locks");
  REQUIRE(r.verdict == Verdict::deadlock);
  auto t0 = source_line("test/models/misbehaving.cpp", "// T0 waits for b");
  auto t1 = source_line("test/models/misbehaving.cpp", "// T1 waits for a");
  CHECK(mentions(*r.bug, "T0 blocked at lock(b) at " + t0));
  CHECK(mentions(*r.bug, "T1 blocked at lock(a) at " + t1));
}

TEST_CASE("a spin loop hits the step limit, naming the loop") {
  RunConfig c;
  c.max_steps = 200;
  auto r = run("test/spin_forever", {}, c);
  REQUIRE(r.verdict == Verdict::livelock);
  CHECK(mentions(*r.bug, "spinner"));
  CHECK(mentions(*r.bug, source_line("test/models/misbehaving.cpp", "// the spin loop")));
  CHECK(mentions(*r.bug, "heddle::await"));
}

TEST_CASE("a loop without visible operations is stopped by the step timeout") {
  RunConfig c;
  c.step_timeout = 0.3;
  for (const char* touch : {"true", "false"}) {
    INFO("touch_memory=" << touch);
    auto r = run("test/plain_loop", {{"touch_memory", touch}}, c);
    REQUIRE(r.verdict == Verdict::model_error);
    CHECK(mentions(*r.bug, "looper ran for over"));
  }
}

TEST_CASE("an exception escaping a thread is a model error with its last operation") {
  auto r = run("test/thrower");
  REQUIRE(r.verdict == Verdict::model_error);
  CHECK(mentions(*r.bug, "T0 threw an exception: boom"));
  CHECK(mentions(*r.bug, "after lock(m) at " +
                             source_line("test/models/misbehaving.cpp", "// last visible op")));
}

TEST_CASE("a stack overflow is a model error, and heddle runs on") {
  auto r = run("test/stack_overflow");
  REQUIRE(r.verdict == Verdict::model_error);
  CHECK(mentions(*r.bug, "stack overflow in deep"));
  // The process survives: a second run works normally.
  CHECK(run("test/locked_writers").verdict == Verdict::ok);
}

TEST_CASE("abort() in a model is a model error") {
  auto r = run("test/aborter");
  REQUIRE(r.verdict == Verdict::model_error);
  CHECK(mentions(*r.bug, "T0 called abort()"));
}

TEST_CASE("a failed check is an assertion with its source line") {
  auto r = run("test/asserter");
  REQUIRE(r.verdict == Verdict::assertion);
  CHECK(mentions(*r.bug, "reader saw the write"));
  CHECK(mentions(*r.bug, source_line("test/models/misbehaving.cpp", "// the check")));
}
