// test/dpor/random: a generator of small random models for differential
// testing (dfs against dpor and bounded). The program is a pure function of
// the seed and the sizes, so every execution rebuilds the same model.
#include <random>
#include <string>
#include <vector>

#include "checker/heddle.hpp"

namespace {
using namespace heddle;

enum class Kind { load, store, fetch_add, cas, locked_inc, sem_wait, sem_signal, barrier,
                  copy_then_wait, copy_no_wait, plain_write, locked_plain,
                  // mix=1 only: awaits whose predicate several writers can
                  // satisfy, and a thread that spawns a child thread.
                  await_ge, await_any, spawn_child };
constexpr int kBasicKinds = 12;
constexpr int kMixKinds = 15;

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
    default: return 1;
  }
}

std::vector<std::vector<Op>> generate(unsigned seed, int threads, int budget, bool mix) {
  std::mt19937 rng(seed);
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  std::vector<std::vector<Op>> prog(static_cast<std::size_t>(threads));
  const bool barrier = pick(4) == 0;
  if (barrier) budget -= threads;
  for (int used = 0, stuck = 0; used < budget && stuck < 50;) {
    auto k = static_cast<Kind>(pick(mix ? kMixKinds : kBasicKinds));
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
};

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
  }
}

const Registration random_model =
    kernel("test/random", "a random small model (differential tests of the strategies)")
        .param("seed", 1, "generator seed", 0, 1000000000)
        .param("threads", 3, "threads", 1, 4)
        .param("budget", 6, "visible operations, about", 1, 12)
        .param("mix", 0, "1: also awaits on multi-writer predicates and spawned children", 0, 1)
        .body([](const Params& p) {
          const int threads = static_cast<int>(p.get_int("threads"));
          auto prog = generate(static_cast<unsigned>(p.get_int("seed")), threads,
                               static_cast<int>(p.get_int("budget")), p.get_int("mix") == 1);
          auto& w = make<World>();
          for (int i = 0; i < 2; ++i) w.x.push_back(&make<Atomic<int>>("x" + std::to_string(i), 0));
          w.m = &make<Mutex>("m");
          w.sem = &make<Semaphore>("sem", static_cast<std::uint32_t>(p.get_int("seed") % 2));
          w.bar = &make<Barrier>("bar", static_cast<std::uint32_t>(threads));
          w.plain = buffer<int>("plain", 1, 0);
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
          });
        });

}  // namespace
