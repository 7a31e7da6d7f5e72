// Small models for the search tests: races that need preemptions, causal
// chains with decoy steps, a depth-2 bug for PCT, a spin loop, a deadlock.
#include <string>

#include "checker/heddle.hpp"

namespace {
using namespace heddle;

// T1 must read the flag between T0's two stores: exactly one preemption.
const auto preempt_race =
    kernel("search/preempt_race", "a reader that sees a transient flag reads racy data")
        .body([](const Params&) {
          auto x = buffer<int>("x", 1);
          auto& flag = make<Atomic<int>>("flag", 0);
          auto& d1 = make<Atomic<int>>("d1", 0);
          auto& d2 = make<Atomic<int>>("d2", 0);
          spawn("T0", [=, &flag]() mutable {
            flag.store(1, Order::relaxed);
            x.store(0, 1);  // racy write
            flag.store(0, Order::relaxed);
          });
          spawn("T1", [=, &flag, &d1]() mutable {
            d1.store(1);
            if (flag.load(Order::relaxed) == 1) (void)x.load(0);  // racy read
            d1.store(2);
          });
          spawn("T2", [&d2] {
            d2.store(1);
            d2.store(2);
          });
        });

// A relaxed first link breaks a release/acquire chain T0 -> T1 -> T2; every
// thread has decoy steps before and after its part.
const auto chain_race =
    kernel("search/chain_race", "a message passed on through a chain with one relaxed link")
        .body([](const Params&) {
          auto data = buffer<int>("data", 1);
          auto& f1 = make<Atomic<int>>("f1", 0);
          auto& f2 = make<Atomic<int>>("f2", 0);
          auto& d0 = make<Atomic<int>>("d0", 0);
          auto& d1 = make<Atomic<int>>("d1", 0);
          auto& d2 = make<Atomic<int>>("d2", 0);
          spawn("T0", [=, &f1, &d0]() mutable {
            d0.store(1);
            data.store(0, 42);  // chain write
            f1.store(1, Order::relaxed);
            d0.store(2);
          });
          spawn("T1", [&f1, &f2, &d1] {
            d1.store(1);
            if (f1.load(Order::acquire) == 1) f2.store(1, Order::release);
          });
          spawn("T2", [=, &f2, &d2]() mutable {
            d2.store(1);
            if (f2.load(Order::acquire) == 1) (void)data.load(0);  // chain read
            d2.store(2);
          });
        });

// An async copy into a buffer that a second thread reads without waiting,
// while the issuer goes on with decoy steps.
const auto async_race =
    kernel("search/async_race", "a copy lands while another thread reads its destination")
        .body([](const Params&) {
          auto src = buffer<int>("src", 1, 7);
          auto dst = buffer<int>("dst", 1, 0);
          auto& go = make<Atomic<int>>("go", 0);
          auto& d0 = make<Atomic<int>>("d0", 0);
          spawn("T0", [=, &go, &d0]() mutable {
            d0.store(1);
            issue("T0.copy", {phase("copy", {touches(dst.region(), true)}, [=]() mutable {
                                copy_elements(dst.region(), 0, src.region(), 0, 1, Proxy::async,
                                              "copy", std::source_location::current());
                              })});
            go.store(1, Order::release);
            d0.store(2);
          });
          spawn("T1", [=, &go]() mutable {
            if (go.load(Order::acquire) == 1) (void)dst.load(0);  // reads before the copy lands?
          });
        });

// Depth 2 for PCT: T1 must read `a` after T0's first store and before its
// second. Decoy threads make the model far too large for dfs.
const auto pct_depth2 =
    kernel("search/pct_depth2", "an intermediate value seen between two stores")
        .param("m", 4, "decoy steps per part", 1, 20)
        .param("decoys", 3, "decoy threads", 0, 6)
        .body([](const Params& p) {
          long m = p.get_int("m"), decoys = p.get_int("decoys");
          auto& a = make<Atomic<int>>("a", 0);
          auto& own0 = make<Atomic<int>>("own0", 0);
          auto& own1 = make<Atomic<int>>("own1", 0);
          spawn("T0", [&a, &own0, m] {  // 2m + 2 steps
            for (long i = 0; i < m; ++i) own0.store(static_cast<int>(i));
            a.store(1);
            a.store(0);
            for (long i = 0; i < m; ++i) own0.store(static_cast<int>(i));
          });
          spawn("T1", [&a, &own1, m] {  // m + 1 steps
            for (long i = 0; i < m; ++i) own1.store(static_cast<int>(i));
            check(a.load() != 1, "saw the intermediate value");
          });
          for (long d = 0; d < decoys; ++d) {
            auto& own = make<Atomic<int>>("decoy" + std::to_string(d), 0);
            spawn("D" + std::to_string(d), [&own, m] {  // m steps
              for (long i = 0; i < m; ++i) own.store(static_cast<int>(i));
            });
          }
        });

// A plain spin loop: under a schedule that never runs the setter, it spins.
const auto spin =
    kernel("search/spin", "a thread spins on an atomic load").body([](const Params&) {
      auto& flag = make<Atomic<int>>("flag", 0);
      spawn("spinner", [&flag] {
        while (flag.load() == 0) {  // spin loop
        }
      });
      spawn("setter", [&flag] { flag.store(1); });
    });

// Two locks taken in opposite orders, with decoy steps around.
const auto lock_order =
    kernel("search/lock_order", "two threads take two mutexes in opposite orders")
        .body([](const Params&) {
          auto& a = make<Mutex>("a");
          auto& b = make<Mutex>("b");
          auto& d = make<Atomic<int>>("d", 0);
          spawn("T0", [&a, &b, &d] {
            d.store(1);
            a.lock();
            b.lock();
            b.unlock();
            a.unlock();
          });
          spawn("T1", [&a, &b, &d] {
            d.store(2);
            b.lock();
            a.lock();
            a.unlock();
            b.unlock();
          });
        });

}  // namespace
