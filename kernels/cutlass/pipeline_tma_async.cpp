// cutlass/pipeline_tma_async: the sm90 mainloop producer/consumer ring
// (PipelineTmaAsync<S>): full[s] mbarriers completed by TMA loads, empty[s]
// released by the consumers, the producer starting at phase 1, consumers
// releasing the previous stage after reading the current one, and the
// producer tail waiting on every empty barrier. Three variants inject a
// real bug each; the correct version verifies.
#include <fmt/format.h>

#include "models/gpu/cutlass.hpp"
#include "models/gpu/gpu.hpp"

namespace {
using namespace heddle;
using namespace heddle::gpu;
using namespace heddle::gpu::cutlass;

constexpr std::size_t kTile = 64;  // elements of one k-tile (A and B folded together)

void producer(PipelineTmaAsync& pipe, const std::string& variant, long k_tiles,
              const View<int>& A, const View<int>& sA) {
  PipelineState st = pipe.make_producer_start_state();
  if (variant == "wrong_phase") st.phase = 0;  // bug: the first empty waits never pass
  const auto bytes = static_cast<std::uint32_t>(kTile * sizeof(int));
  for (long k = 0; k < k_tiles; ++k, ++st) {
    if (variant == "skip_empty_wait")
      pipe.full(st).arrive_expect_tx(bytes);  // bug: overwrites a stage still being read
    else
      pipe.producer_acquire(st, bytes);
    bulk_load(span(sA.tile(st.index, kTile)), span(A.tile(k, kTile)), pipe.full(st));
  }
  for (std::uint32_t i = 0; i < pipe.stages(); ++i, ++st)  // producer_tail
    pipe.empty(st).wait_parity(st.phase);
}

void consumer(PipelineTmaAsync& pipe, const std::string& variant, long k_tiles,
              const View<int>& sA, const View<int>& sums, int me) {
  PipelineState st = pipe.make_consumer_start_state(), prev = st;
  const bool early = variant == "early_release";
  int sum = 0;
  for (long k = 0; k < k_tiles; ++k) {
    pipe.consumer_wait(st);
    if (early) pipe.consumer_release(st);  // bug: frees the stage before reading it
    View<int> stage = sA.tile(st.index, kTile);
    for (std::size_t i = 0; i < kTile; ++i) {  // the wgmma operand reads (async proxy)
      int v = wgmma_read(stage, i);
      check(v == k + 1, fmt::format("k-tile {} read a value of k-tile {}", k, v - 1));
      sum += v;
    }
    if (!early && k > 0) pipe.consumer_release(prev);  // warpgroup_wait<1>: previous done
    prev = st;
    ++st;
  }
  if (!early && k_tiles > 0) pipe.consumer_release(prev);  // mma_tail
  sums.store(me, sum);
}

const Registration pipeline_tma_async =
    kernel("cutlass/pipeline_tma_async",
           "sm90 mainloop ring: TMA loads into S stages guarded by full/empty mbarriers")
        .param("stages", 2, "pipeline stages S", 1, 7)
        .param("k_tiles", 3, "k-tiles loaded and consumed", 1, 8)
        .param("consumers", 1, "consumer threads (warpgroups)", 1, 2)
        .choice("variant", "correct", {"correct", "early_release", "skip_empty_wait", "wrong_phase"},
                "correct, or a bug: consumer releases before reading; producer skips the empty "
                "wait; producer starts at phase 0")
        .preset("correct", {{"variant", "correct"}})
        .preset("four_stages_two_consumers",
                {{"stages", "4"}, {"k_tiles", "8"}, {"consumers", "2"}})
        .preset("early_release", {{"variant", "early_release"}}, Verdict::race)
        .preset("skip_empty_wait", {{"variant", "skip_empty_wait"}}, Verdict::race)
        .preset("wrong_phase", {{"variant", "wrong_phase"}}, Verdict::deadlock)
        .body([](const Params& p) {
          long stages = p.get_int("stages"), k_tiles = p.get_int("k_tiles");
          long consumers = p.get_int("consumers");
          std::string variant = p.get("variant");
          LaunchConfig cfg{1, 1, {{"producer"}}};
          for (long c = 0; c < consumers; ++c) cfg.threads.push_back({fmt::format("consumer{}", c)});
          grid(cfg);
          auto A = global<int>("A", k_tiles * kTile);
          for (long k = 0; k < k_tiles; ++k)
            for (std::size_t i = 0; i < kTile; ++i) A.init(k * kTile + i, static_cast<int>(k + 1));
          auto sums = global<int>("sums", consumers);
          auto sA = shared<int>("sA", stages * kTile);
          std::vector<Mbarrier*> full, empty;
          for (long s = 0; s < stages; ++s) {
            full.push_back(&make<Mbarrier>(fmt::format("full[{}]", s), 1));
            empty.push_back(&make<Mbarrier>(fmt::format("empty[{}]", s),
                                            static_cast<std::uint32_t>(consumers)));
          }
          auto& pipe = make<PipelineTmaAsync>(full, empty);
          current_grid().launch([=, &pipe](const ThreadInfo& t) {
            if (t.thread == 0)
              producer(pipe, variant, k_tiles, A, sA);
            else
              consumer(pipe, variant, k_tiles, sA, sums, t.thread - 1);
          });
          at_exit([=] {
            int want = static_cast<int>(kTile * k_tiles * (k_tiles + 1) / 2);
            for (long c = 0; c < consumers; ++c) check(sums.raw(c) == want, "wrong sum");
            observe("sums", std::to_string(sums.raw(0)));
          });
        });

}  // namespace
