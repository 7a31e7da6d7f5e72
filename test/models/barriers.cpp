// Named-barrier models for DPOR's barrier rules (test/dpor/barrier_test.cpp):
// rounds of bar.sync, with or without data between them, and threads that
// only arrive, so that a phase can be filled by more arrivals than it needs.
#include <string>
#include <vector>

#include "checker/heddle.hpp"
#include "models/gpu/barriers.hpp"

namespace {
using namespace heddle;

// `threads` threads run `rounds` rounds of bar.sync(count). With data=1,
// thread t stores its round into x_t before each sync and, after it, loads
// its neighbour's x (the next round's store races with that load). Each of
// `arrivers` more threads stores into y and makes one bar.arrive(count), and
// every syncing thread loads y after its first sync: which arrivals filled
// a phase shows in what it saw.
const auto barrier_rounds =
    kernel("test/barrier_rounds", "rounds of bar.sync, with data and spare arrivals")
        .param("threads", 3, "threads that sync", 1, 4)
        .param("count", 3, "the barrier's count", 2, 8)
        .param("rounds", 2, "bar.sync rounds per thread", 1, 8)
        .param("data", 1, "1: stores and loads around each sync", 0, 1)
        .param("arrivers", 0, "threads that store y and make one bar.arrive", 0, 2)
        .body([](const Params& p) {
          const int threads = static_cast<int>(p.get_int("threads"));
          const auto count = static_cast<std::uint32_t>(p.get_int("count"));
          const int rounds = static_cast<int>(p.get_int("rounds"));
          const bool data = p.get_int("data") == 1;
          const int arrivers = static_cast<int>(p.get_int("arrivers"));
          auto& bar = make<gpu::NamedBarrier>("bar");
          auto& y = make<Atomic<int>>("y", 0);
          std::vector<Atomic<int>*> x;
          for (int t = 0; t < threads; ++t)
            x.push_back(&make<Atomic<int>>("x" + std::to_string(t), 0));
          for (int t = 0; t < threads; ++t)
            spawn("T" + std::to_string(t), [&bar, &y, x, t, threads, count, rounds, data,
                                            arrivers] {
              std::string log;
              for (int r = 0; r < rounds; ++r) {
                if (data) x[static_cast<std::size_t>(t)]->store(r + 1);
                bar.sync(count);
                if (data) log += std::to_string(x[static_cast<std::size_t>((t + 1) % threads)]->load());
                if (r == 0 && arrivers > 0) log += "y" + std::to_string(y.load());
                log += ",";
              }
              observe("T" + std::to_string(t), log);
            });
          for (int a = 0; a < arrivers; ++a)
            spawn("A" + std::to_string(a), [&bar, &y, a, count] {
              y.store(a + 1);
              bar.arrive(count);
            });
        });
}  // namespace
