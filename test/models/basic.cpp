// Small generic models for the engine's tests: locks, semaphores, flags,
// an async copy, and models that misbehave on purpose.
#include <cassert>
#include <stdexcept>

#include "checker/heddle.hpp"

namespace {
using namespace heddle;

const auto unsync_writers = kernel("test/unsync_writers", "two threads write x[0] unsynchronized")
    .body([](const Params&) {
      auto x = buffer<int>("x", 1);
      spawn("T0", [=]() mutable { x.store(0, 1); });  // first write
      spawn("T1", [=]() mutable { x.store(0, 2); });  // second write
    });

const auto two_races =
    kernel("test/two_races", "two threads write x and y, a step apart, in opposite orders")
        .body([](const Params&) {
          auto x = buffer<int>("x", 1), y = buffer<int>("y", 1);
          auto& a = make<Atomic<int>>("a", 0);  // a scheduling point between the writes
          spawn("T0", [=, &a]() mutable {
            x.store(0, 1);
            a.store(1);
            y.store(0, 1);
          });
          spawn("T1", [=, &a]() mutable {
            y.store(0, 2);
            a.store(2);
            x.store(0, 2);
          });
        });

const auto locked_writers =
    kernel("test/locked_writers", "n threads each add to x[0] r times under one mutex")
        .param("n", 2, "threads", 1, 4)
        .param("rounds", 1, "critical sections per thread", 1, 3)
        .body([](const Params& p) {
          auto x = buffer<int>("x", 1);
          auto& m = make<Mutex>("m");
          long n = p.get_int("n"), rounds = p.get_int("rounds");
          for (long t = 0; t < n; ++t)
            spawn("T" + std::to_string(t), [=, &m]() mutable {
              for (long r = 0; r < rounds; ++r) {
                m.lock();
                x.store(0, x.load(0) + 1);
                m.unlock();
              }
            });
          at_exit([=] {
            check(x.raw(0) == n * rounds, "lost an increment");
            observe("x", std::to_string(x.raw(0)));
          });
        });

const auto flag_message =
    kernel("test/flag_message", "a producer publishes data through a flag")
        .choice("order", "release", {"release", "relaxed", "rmw", "rmw_relaxed"},
                "memory order of the flag; rmw: a seq_cst fetch_add publishes, an acq_rel one reads")
        .param("idle", 0,
               "threads with no operation spawned first (16 or more: the producer's and "
               "consumer's clocks leave their inline storage)",
               0, 40)
        .body([](const Params& p) {
          for (long i = 0; i < p.get_int("idle"); ++i) spawn("idle" + std::to_string(i), [] {});
          auto data = buffer<int>("data", 1);
          auto& flag = make<Atomic<int>>("flag", 0);
          const std::string order = p.get("order");
          const bool rmw = order == "rmw" || order == "rmw_relaxed";
          const bool ordered = order == "release" || order == "rmw";
          Order store_order = order == "rmw" ? Order::seq_cst : ordered ? Order::release : Order::relaxed;
          Order load_order = order == "rmw" ? Order::acq_rel : ordered ? Order::acquire : Order::relaxed;
          spawn("producer", [=, &flag]() mutable {
            data.store(0, 42);
            if (rmw)
              flag.fetch_add(1, store_order);
            else
              flag.store(1, store_order);
          });
          spawn("consumer", [=, &flag]() mutable {
            const int seen = rmw ? flag.fetch_add(0, load_order) : flag.load(load_order);
            if (seen == 1) check(data.load(0) == 42, "stale data");
          });
        });

const auto counting_semaphore =
    kernel("test/counting_semaphore", "n workers share k slots guarded by a semaphore")
        .param("n", 3, "workers", 1, 4)
        .param("k", 1, "slots (1 makes it a mutex)", 1, 3)
        .body([](const Params& p) {
          long n = p.get_int("n"), k = p.get_int("k");
          auto inside = buffer<int>("inside", 1);
          auto& sem = make<Semaphore>("slots", static_cast<std::uint32_t>(k));
          auto& count = make<Atomic<int>>("count", 0);
          for (long t = 0; t < n; ++t)
            spawn("W" + std::to_string(t), [=, &sem, &count]() mutable {
              sem.wait();
              int now = count.fetch_add(1) + 1;
              check(now <= k, "more workers inside than slots");
              if (k == 1) inside.store(0, inside.load(0) + 1);  // exclusive only when k == 1
              count.fetch_add(-1);
              sem.signal();
            });
        });

const auto async_copy =
    kernel("test/async_copy", "a thread issues a copy that completes on a flag, then reads it")
        .flag("wait", true, "await the completion flag before reading the destination")
        .body([](const Params& p) {
          auto src = buffer<int>("src", 4, 7);
          auto dst = buffer<int>("dst", 4, 0);
          auto& done = make<Atomic<int>>("done", 0);
          bool wait = p.get_bool("wait");
          spawn("T0", [=, &done]() mutable {
            issue("T0.copy", {phase("copy", {touches(dst.region(), true), touches(done, true)},
                                    [=, &done]() mutable {
                                      copy_elements(dst.region(), 0, src.region(), 0, 4,
                                                    Proxy::async, "copy",
                                                    std::source_location::current());
                                      done.store(1, Order::release);
                                    })});
            if (wait) await([&done] { return done.peek() == 1; }, {&done});
            int v = dst.load(0);  // the read that races without the wait
            if (wait) check(v == 7, "copy not landed");
            observe("dst0", std::to_string(v));
          });
        });

}  // namespace

namespace {
using namespace heddle;

// A writer thread fills src (generic proxy); an issuer thread, after a
// barrier, issues an async-proxy copy of src. The copy sees the write only
// through a proxy fence by the writer before the barrier or by the issuer
// after it (checker/DESIGN.md § Proxies and tensormaps).
const auto proxy_fence_model =
    kernel("test/proxy_fence", "generic writes become visible to an async copy via a fence")
        .choice("fence", "none", {"none", "writer_before_barrier", "issuer_after_barrier",
                                  "writer_before_write", "issuer_after_issue"},
                "where the proxy fence is")
        .body([](const Params& p) {
          auto src = buffer<int>("src", 2, 0);
          auto dst = buffer<int>("dst", 2, 0);
          auto& bar = make<Barrier>("bar", 2);
          std::string f = p.get("fence");
          spawn("writer", [=, &bar]() mutable {
            if (f == "writer_before_write") fence_proxy();
            src.store(0, 5);
            src.store(1, 6);
            if (f == "writer_before_barrier") fence_proxy();
            bar.arrive_and_wait();
          });
          spawn("issuer", [=, &bar]() mutable {
            bar.arrive_and_wait();
            if (f == "issuer_after_barrier") fence_proxy();
            issue("copy", {phase("copy", {touches(dst.region(), true), touches(src.region(), false)},
                                 [=]() mutable {
                                   copy_elements(dst.region(), 0, src.region(), 0, 2, Proxy::async,
                                                 "copy", std::source_location::current());
                                 })});
            if (f == "issuer_after_issue") fence_proxy();
          });
        });
}  // namespace

namespace {
using namespace heddle;

// Setup code (the host) may use visible primitives: a release in setup must
// not tick a clock entry of its own (regression: it once wrote out of bounds).
const auto setup_releases =
    kernel("test/setup_releases", "setup stores to an atomic and fences before spawning")
        .body([](const Params&) {
          auto& flag = make<Atomic<int>>("flag", 0);
          flag.store(1);  // a seq_cst store in setup releases as the host
          fence_proxy();
          auto x = buffer<int>("x", 1);
          spawn("T0", [&flag, x]() mutable {
            if (flag.load() == 1) x.store(0, 1);
          });
          spawn("T1", [&flag] { flag.store(2); });
        });
}  // namespace

namespace {
using namespace heddle;

// One thread writes a descriptor (generic), fences one proxy, and issues a
// copy that reads the descriptor through the tensormap proxy. Only the
// tensormap fence (or a fence of every proxy) orders the write before it.
const auto proxy_kinds =
    kernel("test/proxy_kinds", "each proxy has its own commit clock")
        .choice("fence", "tensormap", {"async", "tensormap", "all"}, "which proxy fence is used")
        .body([](const Params& p) {
          auto desc = buffer<int>("desc", 1, 0);
          std::string f = p.get("fence");
          spawn("T0", [=]() mutable {
            desc.store(0, 7);  // the descriptor write
            auto& ex = Execution::current();
            if (f == "async") ex.proxy_fence(Proxy::async);
            if (f == "tensormap") ex.proxy_fence(Proxy::tensormap);
            if (f == "all") fence_proxy();
            issue("T0.tma", {phase("read_desc", {touches(desc.region(), false)}, [=]() mutable {
                    desc.region().access(0, 1, false, Proxy::tensormap, "read_desc",
                                         std::source_location::current());
                  })});
          });
        });
}  // namespace

namespace {
using namespace heddle;

// Two writers, each of which alone releases T2's await (x0 != 0 || x1 != 0);
// T2 records what it saw when it passed. Three traces: the await after W0
// only, after W1 only, after both; three final states.
const auto await_either =
    kernel("test/await_either", "an await that either of two writers releases")
        .body([](const Params&) {
          auto& x0 = make<Atomic<int>>("x0", 0);
          auto& x1 = make<Atomic<int>>("x1", 0);
          spawn("W0", [&x0] { x0.store(1); });
          spawn("W1", [&x1] { x1.store(1); });
          spawn("T2", [&x0, &x1] {
            await([&x0, &x1] { return x0.peek() != 0 || x1.peek() != 0; }, {&x0, &x1});
            observe("saw", std::to_string(x0.peek()) + std::to_string(x1.peek()));
          });
        });
}  // namespace

namespace {
using namespace heddle;

// Data choices made by setup and by a thread. Setup chooses whether T1
// writes x or y; T0 chooses the value it writes to x; T2 reads x, then y.
// With check=1, T2 asserts it never sees x=2 with y=5 (T0 chose 1 and T1
// wrote y, both before T2's reads).
const auto local_choices =
    kernel("test/local_choices", "setup and a thread make data choices")
        .param("check", 0, "1: T2 asserts a combination the choices can produce", 0, 1)
        .body([](const Params& p) {
          auto& x = make<Atomic<int>>("x", 0);
          auto& y = make<Atomic<int>>("y", 0);
          const bool to_y = choose(2) == 1;
          const bool check_it = p.get_int("check") == 1;
          spawn("T0", [&x] { x.store(static_cast<int>(choose(2)) + 1); });
          spawn("T1", [&x, &y, to_y] { (to_y ? y : x).store(5); });
          spawn("T2", [&x, &y, check_it] {
            const int a = x.load();
            const int b = y.load();
            if (check_it) check(!(a == 2 && b == 5), "x=2 with y=5");
            observe("seen", std::to_string(a) + "," + std::to_string(b));
          });
        });
}  // namespace
