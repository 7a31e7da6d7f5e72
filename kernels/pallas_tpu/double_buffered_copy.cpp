// pallas_tpu/double_buffered_copy: a single-core HBM -> VMEM pipeline, as
// Pallas's emit_pipeline does it: while the core reads block i from one
// VMEM buffer, the DMA of block i+1 fills the other. The buggy variant
// (`same_buffer=true`) starts the next copy into the buffer still being
// read: the DMA's write races with the core's reads.
#include <fmt/format.h>

#include "models/tpu/tpu.hpp"

namespace {
using namespace heddle;
using namespace heddle::tpu;

int input_of(long i, long j) { return static_cast<int>(10 * (i + 1) + j); }

const Registration double_buffered =
    kernel("pallas_tpu/double_buffered_copy", "HBM->VMEM double buffering on one core")
        .param("blocks", 3, "grid iterations (blocks copied)", 1, 5)
        .param("block", 2, "elements per block", 1, 4)
        .flag("same_buffer", false, "bug: prefetch the next block into the buffer being read")
        .choice("dma_order", "any", dma_order_names(), "DMA completion policy")
        .preset("correct", {})
        .preset("same_buffer", {{"same_buffer", "true"}}, Verdict::race)
        .body([](const Params& p) {
          const long blocks = p.get_int("blocks"), bs = p.get_int("block");
          const bool bug = p.get_bool("same_buffer");
          auto& mesh = make<Mesh>(MeshConfig{1, 1, parse_dma_order(p.get("dma_order")), {}});
          auto x = hbm<int>("x", static_cast<std::size_t>(blocks * bs));
          auto out = hbm<int>("out", static_cast<std::size_t>(blocks));
          auto buf = vmem<int>("buf", static_cast<std::size_t>(2 * bs));
          auto sems = dma_semaphores("copy_sem", 2);
          for (long i = 0; i < blocks; ++i)
            for (long j = 0; j < bs; ++j) x.init(static_cast<std::size_t>(i * bs + j), input_of(i, j), 0);
          mesh.launch([=] {
            auto slot_of = [&](long i) { return bug ? 0 : i % 2; };
            auto fetch = [&](long i) {
              auto s = static_cast<std::size_t>(slot_of(i));
              return make_async_copy(x.slice(static_cast<std::size_t>(i * bs), static_cast<std::size_t>(bs)),
                                     buf.slice(s * static_cast<std::size_t>(bs), static_cast<std::size_t>(bs)),
                                     sems[s]);
            };
            fetch(0).start();
            grid(static_cast<std::uint32_t>(blocks), [&](std::uint32_t i) {
              if (i + 1 < blocks) fetch(i + 1).start();  // prefetch the next block
              fetch(i).wait();
              auto s = static_cast<std::size_t>(slot_of(i)) * static_cast<std::size_t>(bs);
              int sum = 0;
              for (long j = 0; j < bs; ++j) sum += buf.load(s + static_cast<std::size_t>(j));  // read block i
              out.store(i, sum);
            });
          });
          at_exit([=] {
            for (long i = 0; i < blocks; ++i) {
              int want = 0;
              for (long j = 0; j < bs; ++j) want += input_of(i, j);
              int v = out.raw(static_cast<std::size_t>(i), 0);
              observe(fmt::format("out[{}]", i), std::to_string(v));
              check(v == want, fmt::format("out[{}] = {}, expected {}", i, v, want));
            }
          });
        });

}  // namespace
