// Barrier models for DPOR's barrier rules (test/dpor/barrier_test.cpp):
// rounds of bar.sync, with or without data between them, and threads that
// only arrive, so that a phase can be filled by more arrivals than it needs;
// an mbarrier handoff of a TMA load with spare arrivals.
#include <string>
#include <vector>

#include "checker/heddle.hpp"
#include "models/gpu/gpu.hpp"

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

// A producer arrives with expect_tx on an mbarrier and TMA-loads a tile in
// two copies that complete those bytes; `consumers` threads wait for phase
// 0 and read the tile. Each of `arrivers` more threads stores y and arrives (the
// barrier's count is 1 + arrivers); consumers load y, test the phase,
// wait for it when the test failed, and load y again.
const auto mbarrier_handoff =
    kernel("test/mbarrier_handoff", "a TMA load handed over by an mbarrier, with spare arrivals")
        .param("consumers", 2, "threads that wait and read", 1, 3)
        .param("arrivers", 0, "threads that store y and arrive", 0, 2)
        .body([](const Params& p) {
          const int consumers = static_cast<int>(p.get_int("consumers"));
          const int arrivers = static_cast<int>(p.get_int("arrivers"));
          std::vector<gpu::ThreadSpec> threads{{"producer"}};
          for (int c = 0; c < consumers; ++c) threads.push_back({"consumer" + std::to_string(c)});
          for (int a = 0; a < arrivers; ++a) threads.push_back({"arriver" + std::to_string(a)});
          gpu::grid(gpu::LaunchConfig{1, 1, threads});
          auto src = gpu::global<int>("src", 2, 7);
          auto tile = gpu::shared<int>("tile", 2);
          auto& full = make<gpu::Mbarrier>("full", static_cast<std::uint32_t>(1 + arrivers));
          auto& y = make<Atomic<int>>("y", 0);
          gpu::current_grid().launch([=, &full, &y](const gpu::ThreadInfo& t) {
            const gpu::View<int> mine = tile;
            if (t.thread == 0) {
              full.arrive_expect_tx(2 * sizeof(int));  // two copies, one element each
              for (std::size_t k = 0; k < 2; ++k)
                gpu::bulk_load(gpu::span(mine.tile(k, 1)), gpu::span(src.tile(k, 1)), full);
            } else if (t.thread <= consumers) {
              const int before = y.load();
              if (!full.try_wait_parity(0)) full.wait_parity(0);  // CUTLASS's consumer_wait
              observe("consumer" + std::to_string(t.thread), std::to_string(mine.load(0)) + " y" +
                                                                 std::to_string(before) + "," +
                                                                 std::to_string(y.load()));
            } else {
              y.store(t.thread);
              full.arrive();
            }
          });
        });
}  // namespace
