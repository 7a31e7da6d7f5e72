// Kernels of the CI fixture binary (heddle_ci_fixture): the job's outcomes
// on them are known by construction, including presets that are wrong.
#include <signal.h>
#include <unistd.h>

#include <cstdlib>

#include "checker/heddle.hpp"

namespace {
using namespace heddle;

// A producer publishes src through `ready`; the consumer issues an async copy
// src -> dst and reads dst; without waiting for `done` the read races the copy.
const auto pipeline =
    kernel("ci/pipeline", "a consumer reads the destination of a copy it issued")
        .flag("wait", false, "wait for the copy's completion before reading")
        .preset("racy", {{"wait", "false"}}, Verdict::race)
        .preset("fixed", {{"wait", "true"}})
        .body([](const Params& p) {
          auto src = buffer<int>("src", 2, 0);
          auto dst = buffer<int>("dst", 2, 0);
          auto& ready = make<Atomic<int>>("ready", 0);
          auto& done = make<Atomic<int>>("done", 0);
          bool wait = p.get_bool("wait");
          spawn("producer", [=, &ready]() mutable {
            src.store(0, 1);
            src.store(1, 2);
            ready.store(1, Order::release);
          });
          spawn("consumer", [=, &ready, &done]() mutable {
            await([&ready] { return ready.peek() == 1; }, {&ready});
            issue("copy", {phase("copy", {touches(dst.region(), true), touches(done, true)},
                                 [=, &done]() mutable {
                                   auto at = std::source_location::current();  // copy phase
                                   copy_elements(dst.region(), 0, src.region(), 0, 2,
                                                 Proxy::generic, "copy", at);
                                   done.store(1, Order::release);
                                 })});
            if (wait) await([&done] { return done.peek() == 1; }, {&done});
            int v = dst.load(0);  // consumer read
            if (wait) check(v == 1, "the copy has not landed");
          });
        });

// Two workers increment a counter, with or without a lock; both presets
// declare the wrong expectation, so the job must fail on each.
const auto wrong = kernel("ci/wrong_expectation", "presets whose expectations are wrong")
    .flag("locked", false, "protect the increment with a mutex")
    .preset("claims_safe", {{"locked", "false"}})
    .preset("claims_race", {{"locked", "true"}}, Verdict::race)
    .body([](const Params& p) {
      auto x = buffer<int>("x", 1);
      auto& m = make<Mutex>("m");
      bool locked = p.get_bool("locked");
      for (int w = 0; w < 2; ++w)
        spawn("W" + std::to_string(w), [=, &m]() mutable {
          if (locked) m.lock();
          x.store(0, x.load(0) + 1);
          if (locked) m.unlock();
        });
    });

// No presets: the job runs the defaults once and expects no bug.
const auto no_presets = kernel("ci/no_presets", "one thread, one lock, no presets")
    .body([](const Params&) {
      auto& m = make<Mutex>("m");
      spawn("T", [&m] {
        m.lock();
        m.unlock();
      });
    });

// A model that kills its process: the job reports an error and goes on.
// (SIGKILL: heddle turns abort() and faults in setup into model errors.)
const auto crash = kernel("ci/crash", "kills its own process in setup")
    .body([](const Params&) { kill(getpid(), SIGKILL); });

// Four threads take one lock `rounds` times each: (4 rounds)!/(rounds!)^4
// orders of the critical sections (3 rounds: 369600, long enough for
// progress lines and budgets; 4 rounds: 63,063,000, minutes).
void four_threads_locking(int rounds) {
  auto& m = make<Mutex>("m");
  auto x = buffer<int>("x", 1);
  for (int t = 0; t < 4; ++t)
    spawn("T" + std::to_string(t), [=, &m]() mutable {
      for (int r = 0; r < rounds; ++r) {
        m.lock();
        x.store(0, x.load(0) + 1);
        m.unlock();
      }
    });
}
const auto slow = kernel("ci/slow", "four threads take one lock three times each")
    .body([](const Params&) { four_threads_locking(3); });

// Two long cases (ci/slow's model with four rounds, minutes each even on an
// idle machine): a signal always arrives while they run (.ci/signals,
// test/ci/interrupt_test.cpp).
const auto long_pair = kernel("ci/long", "four threads take one lock four times each")
    .preset("first", {})
    .preset("second", {})
    .body([](const Params&) { four_threads_locking(4); });

// Three threads take one lock once each: 3! = 6 executions. One preset
// declares that CI must cover them all, the other does not.
const auto budgeted = kernel("ci/budgeted", "three threads take one lock once each")
    .preset("sampled", {})
    .preset("proved", {})
    .exhaustive()
    .body([](const Params&) {
      auto& m = make<Mutex>("m");
      for (int t = 0; t < 3; ++t)
        spawn("T" + std::to_string(t), [&m] {
          m.lock();
          m.unlock();
        });
    });

}  // namespace
