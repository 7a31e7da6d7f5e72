// mbarrier diagnostics (PTX ISA §9.7.13.15): a phase that completes with a
// copy issued to it in flight, or a tx-count below zero once every arrival
// is in, is its own error naming the expect_tx and the copy; a deadlock
// shows the barrier's phase, pending arrivals and tx-count.
#include <catch2/catch.hpp>

#include "models/gpu/gpu.hpp"
#include "test/support/harness.hpp"
#include "test/support/mentions.hpp"

using namespace heddle;
using namespace heddle::gpu;

namespace {
using test::mentions;

// test/mbarrier_tx: a producer expects `expect` bytes and issues `loads`
// 16-byte bulk loads; the consumer waits the phase and reads.
const Registration mbarrier_tx =
    kernel("test/mbarrier_tx", "an arrive.expect_tx with the wrong byte count")
        .param("expect", 16, "bytes the producer expects", 0, 64)
        .param("loads", 1, "16-byte loads issued", 1, 2)
        .body([](const Params& p) {
          const auto expect = static_cast<std::uint32_t>(p.get_int("expect"));
          const long loads = p.get_int("loads");
          grid(LaunchConfig{1, 1, {{"producer"}, {"consumer"}}});
          auto A = global<int>("A", 8, 1);
          auto sA = shared<int>("sA", 8);
          auto& full = make<Mbarrier>("full", 1);
          current_grid().launch([=, &full](const ThreadInfo& t) {
            View<int> s = sA;
            if (t.thread == 0) {
              full.arrive_expect_tx(expect);
              for (long l = 0; l < loads; ++l)
                bulk_load(span(s.tile(l, 4)), span(A.tile(l, 4)), full);
              return;
            }
            full.wait_parity(0);
            (void)s.load(3);
          });
        });
}  // namespace

TEST_CASE("mbarrier tx-count errors name the expect_tx and the copy", "[gpu][mbarrier]") {
  CHECK(test::run("test/mbarrier_tx", {}).verdict == Verdict::ok);
  // Bytes for one load expected, two issued: the first completes the phase
  // with the second in flight.
  RunResult two = test::run("test/mbarrier_tx", {{"loads", "2"}});
  REQUIRE(two.bug);
  CHECK(two.verdict == Verdict::async_error);
  CHECK(mentions(*two.bug, "still in flight"));
  CHECK(mentions(*two.bug, "expected by the expect_tx at"));
  CHECK(mentions(*two.bug, "the copy in flight was issued at"));
  // Too few bytes for one load: the tx-count goes below zero after the
  // arrival, and the phase can never complete.
  RunResult few = test::run("test/mbarrier_tx", {{"expect", "8"}});
  REQUIRE(few.bug);
  CHECK(few.verdict == Verdict::async_error);
  CHECK(mentions(*few.bug, "tx-count went negative (-8)"));
  CHECK(mentions(*few.bug, "expected by the expect_tx at"));
  CHECK(mentions(*few.bug, "the completing copy was issued at"));
  // Too many: the consumer waits for bytes that never come, and the
  // deadlock report shows the barrier's phase, arrivals and tx-count.
  RunResult many = test::run("test/mbarrier_tx", {{"expect", "32"}});
  REQUIRE(many.bug);
  CHECK(many.verdict == Verdict::deadlock);
  CHECK(mentions(*many.bug, "(full: phase 0 (parity 0), 0 of 1 arrivals pending, 16 tx bytes pending)"));
}
