// cutlass/wgmma_mainloop: the sm90 warp-specialized mainloop with async
// wgmma. The producer TMA-loads A and B k-tiles into S stages; the consumer
// waits full[s], issues wgmma.mma_async on the stage (warpgroup_arrive,
// gemm, warpgroup_commit_batch), then warpgroup_wait<1>() and releases the
// *previous* stage, whose wgmma is now complete (K_PIPE_MMAS = 1). The
// classic bug, `release_in_flight`: release the stage just issued, while
// its wgmma may still read it (PTX ISA §9.7.15: the operands are read in
// the async proxy until wgmma.wait_group covers the mma); the producer's
// next TMA load into that stage then races with the wgmma's read. Also:
// `wait_depth` waits only warpgroup_wait<2>() before releasing the
// previous stage, and `acc_early` reads the accumulator before the last
// warpgroup_wait<0>().
#include <fmt/format.h>

#include "models/gpu/cutlass.hpp"
#include "models/gpu/gpu.hpp"

namespace {
using namespace heddle;
using namespace heddle::gpu;
using namespace heddle::gpu::cutlass;

constexpr std::size_t kM = 2, kK = 2;  // acc rows, k per tile: A tile kM*kK, B tile kK

void producer(PipelineTmaAsync& pipe, long k_tiles, const View<int>& A, const View<int>& B,
              const View<int>& sA, const View<int>& sB) {
  PipelineState st = pipe.make_producer_start_state();
  const auto bytes = static_cast<std::uint32_t>((kM * kK + kK) * sizeof(int));
  for (long k = 0; k < k_tiles; ++k, ++st) {
    pipe.producer_acquire(st, bytes);
    if (elect_one_sync()) {
      bulk_load(span(sA.tile(st.index, kM * kK)), span(A.tile(k, kM * kK)), pipe.full(st));
      bulk_load(span(sB.tile(st.index, kK)), span(B.tile(k, kK)), pipe.full(st));
    }
    pipe.producer_commit(st);
  }
  pipe.producer_tail(st);
}

void consumer(PipelineTmaAsync& pipe, const std::string& variant, long k_tiles,
              const View<int>& sA, const View<int>& sB, const View<int>& acc,
              const View<int>& out) {
  PipelineState st = pipe.make_consumer_start_state(), prev = st;
  for (long k = 0; k < k_tiles; ++k) {
    auto token = pipe.consumer_try_wait(st);
    pipe.consumer_wait(st, token);
    warpgroup_fence_operand(acc);
    warpgroup_arrive();
    gemm(acc, sA.tile(st.index, kM * kK), sB.tile(st.index, kK));
    warpgroup_commit_batch();
    if (variant == "release_in_flight") {
      pipe.consumer_release(st);  // bug: its wgmma may still be reading the stage
    } else {
      if (variant == "wait_depth")
        warpgroup_wait<2>();  // bug: the previous stage's wgmma may still be in flight
      else
        warpgroup_wait<1>();  // all but the newest batch are complete
      if (k > 0) pipe.consumer_release(prev);
    }
    warpgroup_fence_operand(acc);
    prev = st;
    ++st;
  }
  if (variant == "acc_early") {
    (void)acc.load(0);  // bug: the last wgmma may not have written it yet
  }
  warpgroup_wait<0>();  // mma_tail
  if (variant != "release_in_flight" && k_tiles > 0) pipe.consumer_release(prev);
  for (std::size_t i = 0; i < kM; ++i) out.store(i, acc.load(i));
}

const Registration wgmma_mainloop =
    kernel("cutlass/wgmma_mainloop",
           "sm90 mainloop with async wgmma: a stage is released only once its wgmma is waited")
        .param("stages", 2, "pipeline stages S", 1, 4)
        .param("k_tiles", 3, "k-tiles loaded and multiplied", 1, 6)
        .choice("variant", "correct", {"correct", "release_in_flight", "wait_depth", "acc_early"},
                "correct, or a bug: release the stage whose wgmma was just issued; "
                "warpgroup_wait<2> before releasing the previous stage; read the accumulator "
                "before warpgroup_wait<0>")
        .preset("correct", {{"variant", "correct"}})
        .preset("three_stages", {{"stages", "3"}, {"k_tiles", "5"}})
        .preset("release_in_flight", {{"variant", "release_in_flight"}}, Verdict::race)
        .preset("wait_depth", {{"variant", "wait_depth"}}, Verdict::race)
        .preset("acc_early", {{"variant", "acc_early"}}, Verdict::race)
        .body([](const Params& p) {
          const long stages = p.get_int("stages"), k_tiles = p.get_int("k_tiles");
          const std::string variant = p.get("variant");
          grid(LaunchConfig{1, 1, {{"producer"}, {"consumer"}}});
          auto A = global<int>("A", k_tiles * kM * kK);
          auto B = global<int>("B", k_tiles * kK);
          for (long k = 0; k < k_tiles; ++k) {
            for (std::size_t i = 0; i < kM * kK; ++i) A.init(k * kM * kK + i, static_cast<int>(k + 1));
            for (std::size_t i = 0; i < kK; ++i) B.init(k * kK + i, 1);
          }
          auto out = global<int>("out", kM);
          auto sA = shared<int>("sA", stages * kM * kK);
          auto sB = shared<int>("sB", stages * kK);
          auto acc = accumulator<int>("acc", kM);
          std::vector<Mbarrier*> full, empty;
          for (long s = 0; s < stages; ++s) {
            full.push_back(&make<Mbarrier>(fmt::format("full[{}]", s), 1));
            empty.push_back(&make<Mbarrier>(fmt::format("empty[{}]", s), 1));
          }
          auto& pipe = make<PipelineTmaAsync>(full, empty);
          current_grid().launch([=, &pipe](const ThreadInfo& t) {
            if (t.thread == 0)
              producer(pipe, k_tiles, A, B, sA, sB);
            else
              consumer(pipe, variant, k_tiles, sA, sB, acc, out);
          });
          at_exit([=] {
            // Each k-tile adds kK * (k + 1) to every row.
            const int want = static_cast<int>(kK * k_tiles * (k_tiles + 1) / 2);
            for (std::size_t i = 0; i < kM; ++i)
              check(out.raw(i) == want,
                    fmt::format("out[{}] = {}, expected {}", i, out.raw(i), want));
            observe("out", std::to_string(out.raw(0)));
          });
        });

}  // namespace
