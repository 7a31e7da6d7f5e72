// The coarser independence relation: commutative updates of one class
// (semaphore signals, counter adds, barrier arrivals, tx completions) are
// one trace in either order, and an operation that observes them (a read
// of the count between two signals, a parity wait) still orders them, so
// both orders are explored where the outcome can tell them apart.
#include <catch2/catch.hpp>

#include <set>
#include <string>

#include "checker/engine/op.hpp"
#include "checker/heddle.hpp"
#include "models/gpu/barriers.hpp"
#include "test/support/harness.hpp"

using namespace heddle;

namespace {
// test/commute: `writers` threads each perform one commutative update of
// `kind`; with reader=1 a further thread observes the object once.
const Registration commute =
    kernel("test/commute", "commutative updates by several threads, and an optional observer")
        .param("writers", 2, "threads that update", 1, 4)
        .param("kind", 0, "0 semaphore signal, 1 red.add, 2 mbarrier arrive, 3 bar.arrive", 0, 3)
        .param("reader", 0, "1: a thread reads the object once", 0, 1)
        .body([](const Params& p) {
          const long writers = p.get_int("writers");
          const long kind = p.get_int("kind");
          auto& sem = make<Semaphore>("sem", 0);
          auto& cnt = make<Atomic<int>>("cnt", 0);
          auto& mb = make<gpu::Mbarrier>("mb", static_cast<std::uint32_t>(writers));
          auto& nb = make<gpu::NamedBarrier>("nb");
          for (long w = 0; w < writers; ++w)
            spawn("W" + std::to_string(w), [&, kind, writers] {
              if (kind == 0) sem.signal();
              if (kind == 1) cnt.add(1);
              if (kind == 2) mb.arrive();
              if (kind == 3) nb.arrive(static_cast<std::uint32_t>(writers + 1));
            });
          if (p.get_int("reader") == 1)
            spawn("R", [&, kind, writers] {
              std::string seen;
              if (kind == 0) {
                await([] { return true; }, {&sem}, "sem_read");
                seen = std::to_string(sem.count());
              }
              if (kind == 1) seen = std::to_string(cnt.load());
              if (kind == 2) seen = mb.try_wait_parity(0) ? "done" : "open";
              if (kind == 3) {
                nb.sync(static_cast<std::uint32_t>(writers + 1));
                seen = "synced";
              }
              observe("R", seen);
            });
        });

// test/await_phase: W completes an mbarrier's phases 0 and 1 (count 1);
// R awaits phase 1 through the generic await and records the phase it sees
// (1 or 2): the await must conflict with the phase-1 arrival too.
const Registration await_phase =
    kernel("test/await_phase", "a generic await on an mbarrier's later phase")
        .body([](const Params&) {
          auto& mb = make<gpu::Mbarrier>("mb", 1);
          spawn("W", [&mb] {
            mb.arrive();
            mb.arrive();
          });
          spawn("R", [&mb] {
            await([&mb] { return mb.phase() >= 1; }, {&mb}, "await_phase");
            observe("R", std::to_string(mb.phase()));
          });
        });

// test/copy_issue: P issues a copy that will complete_tx 4 bytes on `mb`
// (count 2) with no expect_tx for it, in its arrival's step (where=0) or
// after a step on another object (where=1); Q (and, for where=1, P2) arrive.
// A copy issued before the phase's last arrival is in flight when the phase
// completes (an async error); one issued after lands in the next phase
// (the barrier's final state tells the two apart).
const Registration copy_issue =
    kernel("test/copy_issue", "a copy issued to an mbarrier around its last arrival")
        .param("where", 0, "0: in P's arrival step, 1: after a step on another object", 0, 1)
        .body([](const Params& p) {
          auto& mb = make<gpu::Mbarrier>("mb", 2);
          auto& other = make<Atomic<int>>("other", 0);
          const bool after_other = p.get_int("where") == 1;
          spawn("P", [&mb, &other, after_other] {
            if (after_other) other.store(1);
            else mb.arrive();
            mb.copy_issued(4);
            issue("copy", {phase("complete_tx", {all_phases(mb.id())}, [&mb] { mb.complete_tx(4); })});
          });
          spawn("Q", [&mb] { mb.arrive(); });
          if (after_other) spawn("Q2", [&mb] { mb.arrive(); });
          at_exit([&mb] { observe("mb", mb.describe()); });
        });

RunConfig with(const char* strategy) { return test::with_strategy(strategy); }
}  // namespace

TEST_CASE("entries conflict unless both read or both update one class", "[dpor]") {
  const ObjectId o{1}, other{2};
  const Access read{o, 0, 1, false}, write{o, 0, 1, true};
  const Access sig = update_of(o, update_in_phase(Update::signal));
  const Access add = update_of(o, update_in_phase(Update::counter_add));
  CHECK_FALSE(conflicts(read, read));
  CHECK(conflicts(read, write));
  CHECK(conflicts(read, sig));
  CHECK(conflicts(write, sig));
  CHECK_FALSE(conflicts(sig, sig));
  CHECK(conflicts(sig, add));
  CHECK_FALSE(conflicts(sig, update_of(other, update_in_phase(Update::signal))));
  // Phases: arrivals of one phase commute; of the next, they conflict; a
  // wait on phase 3 does not see arrivals of phase 4.
  const Access a3 = phase_update(o, Update::arrive, 3), b3 = phase_update(o, Update::arrive, 3);
  const Access a4 = phase_update(o, Update::arrive, 4), a5 = phase_update(o, Update::arrive, 5);
  CHECK_FALSE(conflicts(a3, b3));
  CHECK(conflicts(a3, a4));
  CHECK(conflicts(phase_read(o, 3, 3), a3));
  CHECK_FALSE(conflicts(phase_read(o, 3, 3), a4));
  CHECK(conflicts(phase_read(o, 3, 4), a4));
  CHECK_FALSE(conflicts(phase_read(o, 3, 4), a5));
  CHECK(conflicts(all_phases(o), a5));
  CHECK(conflicts(phase_update(o, Update::tx_complete, 3), a3));
}

TEST_CASE("commutative updates are one trace; an observer between them orders them", "[dpor]") {
  // Without a reader, n updates in any order reach one state: dfs runs n!
  // interleavings, dpor one. With a reader, it sees 0..n updates (or the
  // phase open or complete): each outcome is explored, by dpor as by dfs.
  for (int kind = 0; kind < 4; ++kind) {
    for (int writers = 2; writers <= 3; ++writers) {
      std::map<std::string, std::string> params = {{"writers", std::to_string(writers)},
                                                   {"kind", std::to_string(kind)}};
      INFO("kind " << kind << " writers " << writers);
      auto lone = test::outcomes("test/commute", params, with("dpor"));
      auto lone_dfs = test::outcomes("test/commute", params, with("dfs"));
      CHECK(lone.result.stats.executions == 1);
      CHECK(lone_dfs.result.stats.executions == (writers == 2 ? 2u : 6u));
      params["reader"] = "1";
      auto dfs = test::outcomes("test/commute", params, with("dfs"));
      for (const char* s : {"dpor", "optimal", "bounded"}) {
        auto got = test::outcomes("test/commute", params, with(s));
        INFO(s);
        CHECK(got.final_states == dfs.final_states);
        CHECK(got.verdicts == dfs.verdicts);
      }
      // The reader's outcomes: a count of 0..n, or an open or done phase,
      // or (bar.sync) one.
      const std::size_t expected = kind <= 1 ? writers + 1 : kind == 2 ? 2 : 1;
      CHECK(dfs.final_states.size() == expected);
      // dpor: one execution per set of writers that precede the read (the
      // read conflicts with each; the writers commute among themselves). A
      // bar.sync reader arrives like the writers and waits for all: one.
      auto dpor = test::outcomes("test/commute", params, with("dpor"));
      CHECK(dpor.result.stats.executions == (kind <= 2 ? 1u << writers : 1u));
    }
  }
}


TEST_CASE("a generic await reads every phase of the object it names", "[dpor]") {
  // The await sees phase 1 or 2, depending on whether the second arrival
  // came first: both outcomes, for dpor as for dfs (an await that read only
  // phase 0 would be independent of that arrival and see one of them).
  auto dfs = test::outcomes("test/await_phase", {}, with("dfs"));
  CHECK(dfs.final_states.size() == 2);
  for (const char* s : {"dpor", "optimal", "bounded"}) {
    INFO(s);
    CHECK(test::outcomes("test/await_phase", {}, with(s)).final_states == dfs.final_states);
  }
}

TEST_CASE("a copy's issue orders itself against the arrival that completes the phase", "[dpor]") {
  // Both outcomes (the phase completes with the copy in flight, or the copy
  // lands in the next phase) for every explorer: an issue that changed the
  // bytes in flight outside any step on the barrier would commute with the
  // arrivals, and dpor would see one of them.
  for (const char* where : {"0", "1"}) {
    INFO("where " << where);
    auto dfs = test::outcomes("test/copy_issue", {{"where", where}}, with("dfs"));
    CHECK(dfs.verdicts == std::set<std::string>{"async_error", "ok"});
    CHECK(dfs.final_states.size() == 2);
    for (const char* s : {"dpor", "optimal", "bounded"}) {
      INFO(s);
      auto got = test::outcomes("test/copy_issue", {{"where", where}}, with(s));
      CHECK(got.verdicts == dfs.verdicts);
      CHECK(got.final_states == dfs.final_states);
    }
  }
}
