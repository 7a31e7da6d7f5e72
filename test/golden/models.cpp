// Test-only models whose races each call for one kind of hint: a TMA store
// whose shared-memory stage is rewritten too soon (a wait, not a fence), and
// a TPU core reading a DMA's destination before waiting for it.
#include "models/gpu/cutlass.hpp"
#include "models/gpu/gpu.hpp"
#include "models/gpu/pallas.hpp"
#include "models/tpu/tpu.hpp"

namespace {
using namespace heddle;

// Two stages, stored one after the other; the thread then refills stage 0
// after waiting only with tma_store_wait<1>: the store of stage 0 is in the
// older group, so that wait covers it. With `depth=2` it waits <2>, which
// leaves both groups in flight: a write after the store's read, racing.
const auto stage_reuse =
    kernel("hints/stage_reuse", "a shared-memory stage refilled while its TMA store reads it")
        .param("depth", 2, "N of the tma_store_wait<N> before the refill", 0, 2)
        .body([](const Params& p) {
          using namespace heddle::gpu;
          grid({});
          auto out = global<int>("out", 4);
          auto smem = shared<int>("sC", 4);
          const long depth = p.get_int("depth");
          current_grid().launch([=](const ThreadInfo&) {
            View<int> s = smem;
            for (int stage = 0; stage < 2; ++stage) {
              s.store(2 * stage, 1);
              s.store(2 * stage + 1, 1);
              pallas::commit_smem();
              pallas::copy_smem_to_gmem(s.slice(2 * stage, 2), out.slice(2 * stage, 2));
            }
            if (depth == 2) cutlass::tma_store_wait<2>();
            if (depth == 1) cutlass::tma_store_wait<1>();
            if (depth == 0) cutlass::tma_store_wait<0>();
            s.store(0, 2);  // refill stage 0
            cutlass::tma_store_wait<0>();
          });
        });

// Warp 0 stores a staging buffer with a TMA store and arrives on the CTA
// barrier without waiting for the store's read; warp 1 passes the barrier
// and refills the buffer. The barrier orders nothing after the store's read:
// warp 0 must wait_group.read before the barrier (`fixed`).
const auto cross_warp_reuse =
    kernel("hints/store_buffer_cross_warp", "a TMA store's buffer refilled by another warp")
        .flag("fixed", false, "warp 0 waits tma_store_wait<0>() before the barrier")
        .body([](const Params& p) {
          using namespace heddle::gpu;
          grid({1, 1, {{"w0", 0}, {"w1", 1}}});
          auto out = global<int>("out", 2);
          auto smem = shared<int>("sC", 2);
          const bool fixed = p.get_bool("fixed");
          current_grid().launch([=](const ThreadInfo& t) {
            View<int> s = smem;
            if (t.thread == 0) {
              s.store(0, 1);
              s.store(1, 1);
              cutlass::fence_view_async_shared();
              pallas::copy_smem_to_gmem(s, out);
              if (fixed) cutlass::tma_store_wait<0>();
            }
            syncthreads();
            if (t.thread == 1) s.store(0, 2);  // the refill
            if (t.thread == 0) cutlass::tma_store_wait<0>();  // before the kernel exits
          });
        });

// A core starts a local DMA into buf and reads buf before .wait().
const auto dma_read =
    kernel("hints/dma_read_early", "a core reads a DMA's destination before waiting for it")
        .body([](const Params&) {
          using namespace heddle::tpu;
          auto& mesh = make<Mesh>(MeshConfig{1, 1, DmaOrder::any, {}});
          auto in = hbm<int>("x_hbm", 4), buf = vmem<int>("xbuf", 2);
          auto sem = dma_semaphore("copy_sem");
          mesh.launch([=] {
            auto copy = make_async_copy(in.slice(2, 2), buf, sem);
            copy.start();
            (void)buf.load(0);  // read before the wait
            copy.wait();
          });
        });
// Three threads meet at a barrier for seven rounds, then two of them touch
// `data` with nothing between: a 41-step counterexample whose first 34 steps
// are history both racing accesses share (the folded timeline's golden).
const auto rounds =
    kernel("timeline/rounds", "barrier rounds, then a race after the last one")
        .param("rounds", 7, "barrier rounds before the race", 1, 50)
        .body([](const Params& p) {
          const long rounds = p.get_int("rounds");
          auto data = buffer<int>("data", 1);
          auto& bar = make<Barrier>("bar", 3);
          for (int w = 0; w < 3; ++w)
            spawn("w" + std::to_string(w), [=, &bar]() mutable {
              for (long r = 0; r < rounds; ++r) bar.arrive_and_wait();
              if (w == 0) data.store(0, 1);           // the write after the last round
              if (w == 2) (void)data.load(0);         // the read after the last round
            });
        });
}  // namespace

namespace {
using namespace heddle;

// A consumer that waits an mbarrier's old parity: the producer loads stage 0,
// waits for it itself, then loads stage 1 on the same mbarrier (phase 1);
// the consumer waits parity 0 twice (the second should be parity 1), so its
// second wait returns at once, while the load of stage 1 is in flight.
const auto wrong_parity =
    kernel("hints/wrong_parity", "a consumer waits the parity of a phase already complete")
        .body([](const Params&) {
          using namespace heddle::gpu;
          grid(LaunchConfig{1, 1, {{"producer"}, {"consumer"}}});
          auto A = global<int>("A", 4);
          TensorMap desc = global_tensormap("tmap_A", describe_boxes(A, 2, 2, 1));
          auto sA = shared<int>("sA", 4);
          auto& full = make<Mbarrier>("full", 1);
          current_grid().launch([=, &full](const ThreadInfo& t) {
            View<int> s = sA;
            if (t.thread == 0) {
              for (std::uint32_t k = 0; k < 2; ++k) {
                full.arrive_expect_tx(2 * sizeof(int));
                tensor_load(span(s.tile(k, 2)), desc, k, 0, full);
                if (k == 0) full.wait_parity(0);
              }
              return;
            }
            full.wait_parity(0);
            (void)s.load(0);
            full.wait_parity(0);  // the bug: phase 1 has parity 1
            (void)s.load(2);
          });
        });
}  // namespace
