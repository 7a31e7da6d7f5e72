// Test-only models for the bounded strategy: a data choice under
// interleaving, and an async copy whose landing is free to schedule.
#include <string>

#include "checker/heddle.hpp"

namespace {
using namespace heddle;

// T0 picks which of two atomics to bump (a data choice), T1 reads both:
// the final state depends on the value chosen and on the interleaving.
// With choose=0 (the default, for strategies without data choices, like
// optimal) T0 always takes value 2.
const auto choice =
    kernel("bounded/choice", "a thread chooses which atomic to write while another reads both")
        .param("choose", 0, "1: the value is heddle::choose(3)", 0, 1)
        .body([](const Params& p) {
          auto& x = make<Atomic<int>>("x", 0);
          auto& y = make<Atomic<int>>("y", 0);
          const bool data = p.get_int("choose") == 1;
          spawn("T0", [&x, &y, data] {
            x.store(1);
            auto v = data ? choose(3) : 2;
            if (v == 0) x.store(2);
            if (v == 1) y.store(2);
            y.store(static_cast<int>(v) + 3);
          });
          spawn("T1", [&x, &y] {
            int a = x.load();
            int b = y.load();
            observe("seen", std::to_string(a) + "," + std::to_string(b));
          });
        });

// A copy issued by T0 lands (an async step) while T0 and T1 go on; T1's
// read of the flag sees it or not. A copy landing is never a preemption,
// nor does it break T0's run: only T0 <-> T1 switches can count.
const auto copy_and_flag =
    kernel("bounded/copy_and_flag", "a copy lands while two threads touch a flag")
        .body([](const Params&) {
          auto dst = buffer<int>("dst", 1, 0);
          auto& done = make<Atomic<int>>("done", 0);
          auto& flag = make<Atomic<int>>("flag", 0);
          spawn("T0", [dst, &done, &flag] {
            issue("copy", {phase("land", {touches(dst.region(), true), touches(done, true)},
                                 [dst, &done]() mutable {
                                   dst.init(0, 7);
                                   done.store(1);
                                 })});
            flag.store(1);
            flag.store(2);
          });
          spawn("T1", [&done, &flag] {
            int f = flag.load();
            int d = done.load();
            observe("seen", std::to_string(f) + "," + std::to_string(d));
          });
        });

// T0 issues a copy that raises `done` when it lands, then reads `done`
// and asserts the copy has not landed yet. The copy landing between T0's
// issue and its read is an async step inside T0's run, so the failure
// needs no preemption: bound 0 must find it.
const auto early_landing =
    kernel("bounded/early_landing", "a thread asserts that its copy has not landed yet")
        .body([](const Params&) {
          auto& done = make<Atomic<int>>("done", 0);
          spawn("T0", [&done] {
            issue("copy", {phase("land", {touches(done, true)}, [&done] { done.store(1); })});
            check(done.load() == 0, "the copy landed before T0 looked");
          });
        });

}  // namespace
