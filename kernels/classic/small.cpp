// Small classic DPOR benchmarks: casrot (RCMC), n_writers_a_reader (TRACER),
// sigma (SV-COMP sigma.c), philosophers (written for the reference study),
// store_inc (the small-graph point of the GenMC comparison, bench/genmc/).
// Counts are in shared/reference/dpor-benchmarks.md.
#include <string>
#include <vector>

#include "checker/heddle.hpp"

namespace {
using namespace heddle;

const Registration casrot =
    kernel("classic/casrot", "thread i CASes x from i-1 to i (a failed CAS only reads)")
        .param("n", 3, "threads", 1, 12)
        .body([](const Params& p) {
          const int n = static_cast<int>(p.get_int("n"));
          auto& x = make<Atomic<int>>("x", 0);
          for (int i = 1; i <= n; ++i)
            spawn("T" + std::to_string(i), [&x, i] {
              int expected = i - 1;
              x.compare_exchange(expected, i);
            });
          at_exit([&x] { observe("x", std::to_string(x.peek())); });
        });

const Registration n_writers =
    kernel("classic/n_writers_a_reader", "N writers set x := 1 while a reader reads x")
        .param("n", 2, "writer threads", 1, 10)
        .body([](const Params& p) {
          const int n = static_cast<int>(p.get_int("n"));
          auto& x = make<Atomic<int>>("x", 0);
          for (int w = 1; w <= n; ++w) spawn("W" + std::to_string(w), [&x] { x.store(1); });
          spawn("R", [&x] { observe("r", std::to_string(x.load())); });
        });

const Registration sigma =
    kernel("classic/sigma", "main spawns N threads that each write array[idx] for the current idx")
        .param("n", 3, "spawned threads", 1, 8)
        .body([](const Params& p) {
          const int n = static_cast<int>(p.get_int("n"));
          auto& idx = make<Atomic<int>>("idx", -1);
          auto& array = make<std::vector<Atomic<int>*>>();
          for (int i = 0; i < n; ++i)
            array.push_back(&make<Atomic<int>>("array[" + std::to_string(i) + "]", 0));
          spawn("main", [&idx, &array, n] {
            for (int i = 0; i < n; ++i) {
              idx.store(idx.load() + 1);
              spawn("T" + std::to_string(i), [&idx, &array] { array[idx.load()]->store(1); });
            }
          });
          at_exit([&array, n] {
            int sum = 0;
            for (int i = 0; i < n; ++i) sum += array[i]->peek();
            observe("sum", std::to_string(sum));
          });
        });

const Registration philosophers =
    kernel("classic/philosophers", "N philosophers take two forks (mutexes) each")
        .param("n", 3, "philosophers and forks", 2, 10)
        .choice("order", "ring", {"ring", "ordered"},
                "ring: left then right fork (can deadlock); ordered: lower fork first")
        .preset("ring", {{"order", "ring"}}, Verdict::deadlock)
        .preset("ordered", {{"order", "ordered"}})
        .body([](const Params& p) {
          const int n = static_cast<int>(p.get_int("n"));
          const bool ring = p.get("order") == "ring";
          auto& fork = make<std::vector<Mutex*>>();
          auto& meals = make<std::vector<Atomic<int>*>>();
          for (int i = 0; i < n; ++i) {
            fork.push_back(&make<Mutex>("fork[" + std::to_string(i) + "]"));
            meals.push_back(&make<Atomic<int>>("meals[" + std::to_string(i) + "]", 0));
          }
          for (int i = 0; i < n; ++i) {
            int a = i, b = (i + 1) % n;
            if (!ring && a > b) std::swap(a, b);
            spawn("P" + std::to_string(i), [&fork, &meals, i, a, b] {
              fork[a]->lock();
              fork[b]->lock();
              meals[i]->fetch_add(1);
              fork[a]->unlock();
              fork[b]->unlock();
            });
          }
        });

// The small-graph benchmark of issue 17 (bench/genmc/store_inc.c is the
// same program for GenMC): many short executions of few operations each.
// Every trace is one order of the stores and loads that conflict; at 3
// threads and 2 rounds (6 operations a thread) there are 169,206.
const Registration store_inc =
    kernel("classic/store_inc", "each thread sets x, then adds 1 to y by a separate load and store")
        .param("threads", 2, "threads", 1, 6)
        .param("rounds", 1, "times each thread does both", 1, 4)
        .body([](const Params& p) {
          const int threads = static_cast<int>(p.get_int("threads"));
          const int rounds = static_cast<int>(p.get_int("rounds"));
          auto& x = make<Atomic<int>>("x", 0);
          auto& y = make<Atomic<int>>("y", 0);
          for (int t = 1; t <= threads; ++t)
            spawn("T" + std::to_string(t), [&x, &y, t, rounds] {
              for (int k = 0; k < rounds; ++k) {
                x.store(t);
                y.store(y.load() + 1);
              }
            });
        });

}  // namespace
