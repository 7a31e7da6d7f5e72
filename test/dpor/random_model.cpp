// test/dpor/random: a generator of small random models for differential
// testing (dfs against dpor and bounded). The program is a pure function of
// the seed and the sizes, so every execution rebuilds the same model.
#include <array>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "checker/heddle.hpp"
#include "models/gpu/barriers.hpp"

namespace {
using namespace heddle;

enum class Kind { load, store, fetch_add, cas, locked_inc, sem_wait, sem_signal, barrier,
                  copy_then_wait, copy_no_wait, plain_write, locked_plain,
                  // mix=1 only: awaits whose predicate several writers can
                  // satisfy, and a thread that spawns a child thread.
                  await_ge, await_any, spawn_child,
                  // mix=2 only: try_lock, semaphore units in twos, partially
                  // overlapping ranges of a shared buffer, a two-phase copy,
                  // grandchildren, proxy fences, a counter await, a CAS loop, a semaphore
  // signalled by an async agent (its footprint has no unit token).
                  try_lock_inc, sem_signal2, sem_wait2, wide_locked, wide_racy, copy2,
                  spawn_grandchild, fence, count_up, await_count, cas_loop, async_signal,
                  // mix=3 (with the basic kinds): commutative updates and what
                  // observes them: counter adds and reads, a semaphore read,
                  // mbarrier arrivals (with tx, and tx completed before it is
                  // expected), parity waits and tests, named-barrier syncs.
                  red_add, cnt_read, sem_peek, mb_arrive, mb_arrive_tx, mb_tx_first, mb_wait,
                  mb_try, nb_sync, nb_arrive };
constexpr int kBasicKinds = 12;
constexpr int kMixKinds = 15;
constexpr int kMix2Kinds = 27;
constexpr int kMix3Kinds = 37;

/// The op kinds generator `mix` draws from: mix=3 adds its own to the basic ones.
Kind draw(int mix, int r) {
  if (mix != 3) return static_cast<Kind>(r);
  return static_cast<Kind>(r < kBasicKinds ? r : kMix2Kinds + (r - kBasicKinds));
}
int kinds(int mix) {
  return mix == 3 ? kBasicKinds + (kMix3Kinds - kMix2Kinds)
                  : mix == 2 ? kMix2Kinds : mix == 1 ? kMixKinds : kBasicKinds;
}

struct Op {
  Kind kind;
  int a = 0, b = 0;
};

/// Visible operations an op performs (bounds the size of dfs's search).
int cost(Kind k) {
  switch (k) {
    case Kind::locked_inc: return 4;
    case Kind::locked_plain: return 2;
    case Kind::copy_then_wait: return 2;  // the copy's phase and the await
    case Kind::spawn_child: return 2;     // the child's fetch_add and load
    case Kind::plain_write: return 0;
    case Kind::try_lock_inc: return 4;      // try_lock, load, store, unlock
    case Kind::sem_wait2: return 2;
    case Kind::wide_locked: return 2;       // lock, unlock
    case Kind::wide_racy: return 0;
    case Kind::copy2: return 3;             // two phases and the await
    case Kind::spawn_grandchild: return 3;  // child's fetch_add, grandchild's fetch_add and load
    case Kind::cas_loop: return 3;          // load and up to two CASes
    case Kind::mb_arrive_tx: return 2;      // the arrival and the copy's complete_tx
    case Kind::mb_tx_first: return 2;
    case Kind::nb_sync: return 2;           // arrival and wait
    default: return 1;
  }
}

std::vector<std::vector<Op>> generate(unsigned seed, int threads, int budget, int mix) {
  std::mt19937 rng(seed);
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  std::vector<std::vector<Op>> prog(static_cast<std::size_t>(threads));
  const bool barrier = pick(4) == 0;
  if (barrier) budget -= threads;
  for (int used = 0, stuck = 0; used < budget && stuck < 50;) {
    auto k = draw(mix, pick(kinds(mix)));
    if (k == Kind::barrier) continue;
    if (used + cost(k) > budget) { ++stuck; continue; }
    auto& t = prog[static_cast<std::size_t>(pick(threads))];
    t.push_back(Op{k, pick(2), pick(3)});
    used += cost(k);
  }
  if (barrier) {
    for (auto& t : prog) {
      auto at = t.empty() ? 0 : pick(static_cast<int>(t.size()) + 1);
      t.insert(t.begin() + at, Op{Kind::barrier});
    }
  }
  return prog;
}

struct World {
  std::vector<Atomic<int>*> x;
  Mutex* m = nullptr;
  Semaphore* sem = nullptr;
  Barrier* bar = nullptr;
  Buffer<int> plain;
  Buffer<int> wide;          // mix=2: 3 elements, accessed as [0,2) and [1,3)
  Atomic<int>* cnt = nullptr;  // mix=2: counted up, awaited >= 2; mix=3: red.add
  gpu::Mbarrier* mb = nullptr;     // mix=3: count 1 or 2, 4 tx bytes per tx arrival
  gpu::NamedBarrier* nb = nullptr;  // mix=3: phases of two arrivals
};

void run_op2(World& w, const Op& op, int tid, int& copies, std::string& log);
void run_op3(World& w, const Op& op, std::string& log);

void run_op(World& w, const Op& op, int tid, int& copies, std::string& log) {
  auto& x = *w.x[static_cast<std::size_t>(op.a)];
  switch (op.kind) {
    case Kind::load: log += std::to_string(x.load()) + ","; break;
    case Kind::store: x.store(op.b + 1); break;
    case Kind::fetch_add: log += std::to_string(x.fetch_add(1)) + ","; break;
    case Kind::cas: {
      int expected = op.b;
      log += x.compare_exchange(expected, 5) ? "s," : "f,";
      break;
    }
    case Kind::locked_inc:
      w.m->lock();
      x.store(x.load() + 1);
      w.m->unlock();
      break;
    case Kind::sem_wait: w.sem->wait(); break;
    case Kind::sem_signal: w.sem->signal(); break;
    case Kind::barrier: w.bar->arrive_and_wait(); break;
    case Kind::copy_then_wait:
    case Kind::copy_no_wait: {
      auto dst = buffer<int>("dst" + std::to_string(tid) + "_" + std::to_string(copies++), 1, 0);
      auto& flag = make<Atomic<int>>("flag", 0);
      int value = 10 + op.b;
      issue("copy", {phase("land", {touches(dst.region(), true), touches(flag, true)},
                           [dst, &flag, value]() mutable {
                             dst.init(0, value);
                             dst.region().access(0, 1, true, Proxy::async, "copy",
                                                 std::source_location::current());
                             flag.store(1, Order::release);
                           })});
      if (op.kind == Kind::copy_then_wait) await([&flag] { return flag.peek() == 1; }, {&flag});
      log += std::to_string(dst.load(0)) + ",";
      break;
    }
    case Kind::await_ge:
      await([&x] { return x.peek() >= 2; }, {&x});
      log += "g,";
      break;
    case Kind::await_any: {
      auto& x0 = *w.x[0];
      auto& x1 = *w.x[1];
      await([&x0, &x1] { return x0.peek() != 0 || x1.peek() != 0; }, {&x0, &x1});
      log += "a,";
      break;
    }
    case Kind::spawn_child: {
      const std::string key = "C" + std::to_string(tid) + "_" + std::to_string(copies++);
      spawn(key, [&x, key] {
        x.fetch_add(1);
        observe(key, std::to_string(x.load()));
      });
      break;
    }
    case Kind::plain_write: w.plain.store(0, tid); break;
    case Kind::locked_plain:
      w.m->lock();
      w.plain.store(0, w.plain.load(0) + 1);
      w.m->unlock();
      break;
    default: run_op2(w, op, tid, copies, log); break;
  }
}

// mix=2: elements [lo, lo+2) of the shared buffer `wide`, read or written
// in one access (partially overlapping ranges race on one element).
void wide_access(World& w, int lo, bool write, int tid, std::string& log) {
  const auto first = static_cast<std::size_t>(lo);
  w.wide.region().access(first, 2, write, Proxy::generic, write ? "store" : "load",
                         std::source_location::current());
  if (write) {
    w.wide.init(first, tid + 1);
    w.wide.init(first + 1, tid + 1);
  } else {
    log += std::to_string(w.wide.raw(first)) + std::to_string(w.wide.raw(first + 1)) + ",";
  }
}

/// The byte range of elements [lo, lo+2) of `wide`, for a phase's footprint.
Access wide_range(const World& w, int lo, bool write) {
  const auto b = static_cast<std::uint32_t>(sizeof(int));
  return Access{w.wide.region().id(), static_cast<std::uint32_t>(lo) * b,
                static_cast<std::uint32_t>(lo + 2) * b, write};
}

// A two-phase copy: read wide[lo, lo+2), then write it to a private
// destination (a = 1: awaited and loaded) or to the other overlapping range
// of `wide` (a = 0: not awaited), and set a flag.
void two_phase_copy(World& w, const Op& op, int tid, int& copies, std::string& log) {
  const int lo = op.b % 2;
  const bool to_wide = op.a == 0;
  auto dst = to_wide ? w.wide
                     : buffer<int>("dst" + std::to_string(tid) + "_" + std::to_string(copies), 2, 0);
  ++copies;
  auto& flag = make<Atomic<int>>("flag", 0);
  auto data = std::make_shared<std::array<int, 2>>();
  const std::size_t at = to_wide ? static_cast<std::size_t>(1 - lo) : 0;
  Access dst_fp = to_wide ? wide_range(w, 1 - lo, true) : touches(dst.region(), true);
  issue("copy2",
        {phase("read", {wide_range(w, lo, false)},
               [src = w.wide, lo, data] {
                 const auto first = static_cast<std::size_t>(lo);
                 src.region().access(first, 2, false, Proxy::async, "copy2",
                                     std::source_location::current());
                 (*data)[0] = src.raw(first);
                 (*data)[1] = src.raw(first + 1);
               }),
         phase("write", {dst_fp, touches(flag, true)}, [dst, at, data, &flag]() mutable {
           dst.region().access(at, 2, true, Proxy::async, "copy2",
                               std::source_location::current());
           dst.init(at, (*data)[0] + 10);
           dst.init(at + 1, (*data)[1] + 10);
           flag.store(1, Order::release);
         })});
  if (to_wide) return;
  await([&flag] { return flag.peek() == 1; }, {&flag});
  log += std::to_string(dst.load(0)) + std::to_string(dst.load(1)) + ",";
}

void run_op2(World& w, const Op& op, int tid, int& copies, std::string& log) {
  auto& x = *w.x[static_cast<std::size_t>(op.a)];
  switch (op.kind) {
    case Kind::try_lock_inc:
      if (!w.m->try_lock()) {
        log += "n,";
        break;
      }
      x.store(x.load() + 1);
      w.m->unlock();
      log += "t,";
      break;
    case Kind::sem_signal2: w.sem->signal(2); break;
    case Kind::sem_wait2:
      w.sem->wait();
      w.sem->wait();
      break;
    case Kind::wide_locked:
      w.m->lock();
      wide_access(w, op.b % 2, op.a == 1, tid, log);
      w.m->unlock();
      break;
    case Kind::wide_racy: wide_access(w, op.b % 2, op.a == 1, tid, log); break;
    case Kind::copy2: two_phase_copy(w, op, tid, copies, log); break;
    case Kind::spawn_grandchild: {
      const std::string key = "G" + std::to_string(tid) + "_" + std::to_string(copies++);
      spawn(key, [&x, key] {
        spawn(key + "g", [&x, key] {
          x.fetch_add(1);
          observe(key + "g", std::to_string(x.load()));
        });
        x.fetch_add(1);
      });
      break;
    }
    case Kind::fence: fence_proxy(); break;
    case Kind::count_up: w.cnt->fetch_add(1); break;
    case Kind::await_count: {
      auto& c = *w.cnt;
      await([&c] { return c.peek() >= 2; }, {&c});
      log += "c,";
      break;
    }
    case Kind::cas_loop: {
      int expected = x.load();
      int tries = 0;
      while (tries < 2 && !x.compare_exchange(expected, expected + 1)) ++tries;
      log += "L" + std::to_string(tries) + ",";
      break;
    }
    case Kind::async_signal: {
      auto& sem = *w.sem;
      issue("signal", {phase("signal", {touches(sem, true)}, [&sem] { sem.signal(); })});
      break;
    }
    default: run_op3(w, op, log); break;
  }
}

// An async copy that completes 4 transaction bytes on the mbarrier.
void complete_tx_copy(gpu::Mbarrier& mb) {
  mb.copy_issued(4);
  issue("tx", {phase("complete_tx", {all_phases(mb.id())}, [&mb] { mb.complete_tx(4); })});
}

void run_op3(World& w, const Op& op, std::string& log) {
  switch (op.kind) {
    case Kind::red_add: w.cnt->add(1, op.a == 0 ? Order::relaxed : Order::release); break;
    case Kind::cnt_read: log += std::to_string(w.cnt->load()) + ","; break;
    case Kind::sem_peek: {  // a visible read of the count between signals
      Semaphore& sem = *w.sem;
      await([] { return true; }, {&sem}, "sem_read");
      log += "s" + std::to_string(sem.count()) + ",";
      break;
    }
    case Kind::mb_arrive: w.mb->arrive(); break;
    case Kind::mb_arrive_tx:
      w.mb->arrive_expect_tx(4);
      complete_tx_copy(*w.mb);
      break;
    case Kind::mb_tx_first:  // tx goes below zero until the arrival expects it
      complete_tx_copy(*w.mb);
      w.mb->arrive_expect_tx(4);
      break;
    case Kind::mb_wait:
      w.mb->wait_parity(static_cast<std::uint32_t>(op.b % 2));
      log += "w" + std::to_string(w.mb->phase()) + ",";
      break;
    case Kind::mb_try:
      log += w.mb->try_wait_parity(static_cast<std::uint32_t>(op.b % 2)) ? "y," : "n,";
      break;
    case Kind::nb_sync: w.nb->sync(2); break;
    case Kind::nb_arrive: w.nb->arrive(2); break;
    default: throw ModelError("[heddle bug] test/random: unknown op kind");
  }
}

const Registration random_model =
    kernel("test/random", "a random small model (differential tests of the strategies)")
        .param("seed", 1, "generator seed", 0, 1000000000)
        .param("threads", 3, "threads", 1, 4)
        .param("budget", 6, "visible operations, about", 1, 12)
        .param("mix", 0,
               "1: also awaits on multi-writer predicates and spawned children; 2: also "
               "try_lock, signal(2), wait pairs, overlapping buffer ranges, two-phase copies, "
               "grandchildren, proxy fences, a counter await, a CAS loop and async signals; 3: "
               "the basic kinds with commutative updates (counter adds, semaphore reads, "
               "mbarrier arrivals and tx, parity waits, named-barrier syncs)",
               0, 3)
        .body([](const Params& p) {
          const int threads = static_cast<int>(p.get_int("threads"));
          auto prog = generate(static_cast<unsigned>(p.get_int("seed")), threads,
                               static_cast<int>(p.get_int("budget")), static_cast<int>(p.get_int("mix")));
          auto& w = make<World>();
          for (int i = 0; i < 2; ++i) w.x.push_back(&make<Atomic<int>>("x" + std::to_string(i), 0));
          w.m = &make<Mutex>("m");
          w.sem = &make<Semaphore>("sem", static_cast<std::uint32_t>(p.get_int("seed") % 2));
          w.bar = &make<Barrier>("bar", static_cast<std::uint32_t>(threads));
          w.plain = buffer<int>("plain", 1, 0);
          if (p.get_int("mix") >= 2) {
            w.wide = buffer<int>("wide", 3, 0);
            w.cnt = &make<Atomic<int>>("cnt", 0);
          }
          if (p.get_int("mix") == 3) {
            w.mb = &make<gpu::Mbarrier>("mb", static_cast<std::uint32_t>(1 + p.get_int("seed") % 2));
            w.nb = &make<gpu::NamedBarrier>("nb");
          }
          for (int t = 0; t < threads; ++t)
            spawn("T" + std::to_string(t), [&w, ops = prog[static_cast<std::size_t>(t)], t] {
              std::string log;
              int copies = 0;
              for (const auto& op : ops) run_op(w, op, t, copies, log);
              observe("T" + std::to_string(t), log);
            });
          at_exit([&w] {
            for (std::size_t i = 0; i < w.x.size(); ++i)
              observe("x" + std::to_string(i), std::to_string(w.x[i]->peek()));
            observe("sem", std::to_string(w.sem->count()));
            observe("plain", std::to_string(w.plain.raw(0)));
            if (w.cnt == nullptr) return;
            observe("wide", std::to_string(w.wide.raw(0)) + std::to_string(w.wide.raw(1)) +
                                std::to_string(w.wide.raw(2)));
            observe("cnt", std::to_string(w.cnt->peek()));
            if (w.mb != nullptr) observe("mb", std::to_string(w.mb->phase()));
          });
        });

}  // namespace
