// Differential test of the DMA-semaphore footprints (issue 47 item 2): random
// Pallas TPU models whose remote DMAs share receive semaphores and slots,
// with reads of the slots after the waits, explored by dfs (no reduction),
// dpor and optimal under dma_order=any and on_wait. The reducing explorers
// must reach the same final states and verdicts as dfs; under on_wait the
// queue and demand are footprint bytes of their own (models/tpu/semaphore.hpp).
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "models/tpu/tpu.hpp"
#include "test/support/harness.hpp"

using namespace heddle;
using namespace heddle::tpu;

namespace {

struct Transfer {
  std::uint32_t src = 0, dst = 0;
  std::size_t slot = 0, sem = 0;
};

// One device's program: sends (start, then wait_send at once or at the end)
// and receives (wait_recv, then read the slot) of its transfers, merged by coin flips.
struct Op {
  enum Kind { send, recv } kind;
  std::size_t transfer;
  bool wait_now = false;  // a send's wait_send right after its start
};

struct Plan {
  std::vector<Transfer> transfers;
  std::vector<std::vector<Op>> programs;  // per device
};

Plan make_plan(std::uint32_t seed, std::uint32_t devices, std::size_t count, std::size_t sems) {
  std::mt19937 rng(seed);
  Plan p;
  p.programs.resize(devices);
  std::vector<std::vector<Op>> sends(devices), recvs(devices);
  for (std::size_t t = 0; t < count; ++t) {
    Transfer x;
    x.src = rng() % devices;
    x.dst = (x.src + 1 + rng() % (devices - 1)) % devices;
    x.slot = rng() % 2;
    x.sem = rng() % sems;
    p.transfers.push_back(x);
    sends[x.src].push_back({Op::send, t, rng() % 2 == 0});
    recvs[x.dst].push_back({Op::recv, t});
  }
  for (std::uint32_t d = 0; d < devices; ++d) {
    std::size_t a = 0, b = 0;
    while (a < sends[d].size() || b < recvs[d].size()) {
      bool take_send = b == recvs[d].size() || (a < sends[d].size() && rng() % 2 == 0);
      p.programs[d].push_back(take_send ? sends[d][a++] : recvs[d][b++]);
    }
  }
  return p;
}

const Registration random_dma =
    kernel("test/tpu_random_dma", "random remote DMAs sharing receive semaphores and slots")
        .param("seed", 1, "generator seed", 0, 1000000)
        .param("devices", 2, "devices", 2, 3)
        .param("transfers", 3, "remote DMAs", 1, 5)
        .param("sems", 1, "receive semaphores per device", 1, 3)
        .choice("dma_order", "any", dma_order_names(), "DMA completion policy")
        .body([](const Params& pr) {
          const auto n = static_cast<std::uint32_t>(pr.get_int("devices"));
          const auto count = static_cast<std::size_t>(pr.get_int("transfers"));
          Plan plan = make_plan(static_cast<std::uint32_t>(pr.get_int("seed")), n, count,
                                static_cast<std::size_t>(pr.get_int("sems")));
          auto& mesh = make<Mesh>(MeshConfig{n, 1, parse_dma_order(pr.get("dma_order")), {}});
          auto in = hbm<int>("in", count);
          auto buf = vmem<int>("buf", 2);
          auto seen = vmem<int>("seen", count);
          auto send_sem = dma_semaphore("send_sem");
          auto recv_sems = dma_semaphores("recv_sem", static_cast<std::size_t>(pr.get_int("sems")));
          for (std::uint32_t d = 0; d < n; ++d)
            for (std::size_t t = 0; t < count; ++t) in.init(t, static_cast<int>(100 * t + d), d);
          mesh.launch([=] {
            const std::uint32_t d = device_id();
            std::vector<AsyncRemoteCopy> late;
            for (const Op& op : plan.programs[d]) {
              const Transfer& x = plan.transfers[op.transfer];
              auto copy = make_async_remote_copy(in.slice(op.transfer, 1), buf.slice(x.slot, 1),
                                                 send_sem, recv_sems[x.sem], x.dst);
              if (op.kind == Op::recv) {
                copy.wait_recv();
                seen.store(op.transfer, buf.load(x.slot));
                continue;
              }
              copy.start();
              if (op.wait_now) copy.wait_send();
              else late.push_back(copy);
            }
            for (auto& c : late) c.wait_send();
          });
          at_exit([=] {
            for (std::uint32_t d = 0; d < n; ++d)
              for (std::size_t t = 0; t < count; ++t)
                observe(fmt::format("dev{}.seen{}", d, t), std::to_string(seen.raw(t, d)));
          });
        });

RunConfig with(const char* strategy, std::uint64_t budget) {
  RunConfig c;
  c.strategy = strategy;
  c.max_executions = budget;
  return c;
}

}  // namespace

TEST_CASE("random remote DMAs over shared semaphores: dpor and optimal agree with dfs, "
          "under dma_order any and on_wait", "[tpu][dpor][on_wait]") {
  const int seeds = std::getenv("HEDDLE_LONG") ? 400 : 60;
  int compared = 0;
  for (int seed = 1; seed <= seeds; ++seed) {
    for (const char* order : {"any", "on_wait"}) {
      const std::map<std::string, std::string> params = {
          {"seed", std::to_string(seed)}, {"devices", seed % 3 == 0 ? "3" : "2"},
          {"transfers", std::to_string(2 + seed % 3)}, {"sems", std::to_string(1 + seed % 2)},
          {"dma_order", order}};
      auto oracle = test::outcomes("test/tpu_random_dma", params, with("dfs", 20000));
      if (oracle.result.stopped_by == "max-executions") continue;  // too big for dfs here
      ++compared;
      for (const char* strategy : {"dpor", "optimal"}) {
        INFO("seed " << seed << " dma_order " << order << " strategy " << strategy);
        auto got = test::outcomes("test/tpu_random_dma", params, with(strategy, 0));
        CHECK(got.final_states == oracle.final_states);
        CHECK(got.verdicts == oracle.verdicts);
        CHECK(got.result.stats.executions <= oracle.result.stats.executions);
      }
    }
  }
  CHECK(compared >= seeds);  // most of the 2 * seeds runs fit dfs's budget
}
