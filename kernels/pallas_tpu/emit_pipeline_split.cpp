// pallas_tpu/emit_pipeline_split: a kernel on HBM refs that splits its
// work across the two cores of a chip by hand: each core runs an inner
// pltpu.emit_pipeline over its half of x, doubling it into out, and reads
// its first result back once the pipeline returned (every copy is waited
// by then). The bug (`same_half`) forgets the core offset: both cores
// pipeline the first half, and their write-back DMAs race on out.
#include <fmt/format.h>

#include "models/tpu/tpu.hpp"

namespace {
using namespace heddle;
using namespace heddle::tpu;

int input_of(std::size_t i) { return static_cast<int>(3 * i + 1); }

void double_block(const GridPoint&, const std::vector<Ref<int>>& in,
                  const std::vector<Ref<int>>& out) {
  for (std::size_t k = 0; k < in[0].size(); ++k) out[0].store(k, 2 * in[0].load(k));
}

const Registration split =
    kernel("pallas_tpu/emit_pipeline_split", "each core pipelines its half of an HBM array")
        .param("blocks", 2, "blocks per core", 1, 3)
        .param("block", 2, "elements per block", 1, 3)
        .flag("same_half", false, "bug: both cores pipeline the first half")
        .choice("dma_order", "any", dma_order_names(), "DMA completion policy")
        .preset("correct", {})
        .preset("same_half", {{"same_half", "true"}}, Verdict::race)
        .body([](const Params& p) {
          const std::int64_t blocks = p.get_int("blocks"), bs = p.get_int("block");
          const auto half = static_cast<std::size_t>(blocks * bs);
          const bool bug = p.get_bool("same_half");
          auto& mesh = make<Mesh>(MeshConfig{1, 2, parse_dma_order(p.get("dma_order")), {}});
          auto x = hbm<int>("x", 2 * half), out = hbm<int>("out", 2 * half);
          for (std::size_t i = 0; i < 2 * half; ++i) x.init(i, input_of(i), 0);
          auto by_block = [](const GridPoint& g) { return GridPoint{g[0]}; };
          auto pipe = emit_pipeline<int>(
              double_block, {blocks},
              {ArraySpec{"x_vmem", {blocks * bs}, BlockSpec{{bs}, by_block}}},
              {ArraySpec{"o_vmem", {blocks * bs}, BlockSpec{{bs}, by_block}}});
          mesh.launch([=] {
            const std::size_t off = bug ? 0 : core_id() * half;
            pipe({x.slice(off, half)}, {out.slice(off, half)});
            check(out.load(off) == 2 * input_of(off), "the pipeline wrote its first block");
          });
          at_exit([=] {
            for (std::size_t i = 0; i < 2 * half; ++i) {
              int v = out.raw(i, 0);
              observe(fmt::format("out[{}]", i), std::to_string(v));
              check(v == 2 * input_of(i), fmt::format("out[{}] = {}, expected {}", i, v,
                                                     2 * input_of(i)));
            }
          });
        });

}  // namespace
