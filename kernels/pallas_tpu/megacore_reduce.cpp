// pallas_tpu/megacore_reduce: out[j] = w[j] * sum_r x[r][j] as a
// pallas_call over the grid (column blocks, row blocks) on a two-core
// chip. The column axis is independent, so it is "parallel": each core
// takes half of the columns. The row axis accumulates into one output
// block, so it is "arbitrary": the block stays in VMEM while its index
// does not change and is written back once, and w's block is fetched once
// per core. The bug (semantics=arbitrary,parallel) marks the reduction
// axis parallel instead: the cores split the rows, each accumulates a
// partial sum into the same output blocks and both write them back; the
// two cores' write-back DMAs race on out.
#include <fmt/format.h>

#include "models/tpu/tpu.hpp"

namespace {
using namespace heddle;
using namespace heddle::tpu;

constexpr std::int64_t kCols = 4, kBlockCols = 2;

int x_of(std::int64_t r, std::int64_t j) { return static_cast<int>(10 * (r + 1) + j); }
int w_of(std::int64_t j) { return static_cast<int>(j + 1); }

// One grid point (j, i): accumulate row block i of column block j.
void accumulate(const GridPoint& pt, const std::vector<Ref<int>>& in,
                const std::vector<Ref<int>>& out) {
  for (std::size_t k = 0; k < static_cast<std::size_t>(kBlockCols); ++k) {
    int acc = pt[1] == 0 ? 0 : out[0].load(k);  // pl.when(program_id(1) == 0): zero the block
    out[0].store(k, acc + in[0].load(k) * in[1].load(k));
  }
}

BlockedCall<int> make_call(std::int64_t rows, const std::vector<std::string>& semantics) {
  auto by_column = [](const GridPoint& p) { return GridPoint{0, p[0]}; };
  return pallas_call<int>(
      accumulate, GridSpec{{kCols / kBlockCols, rows}, semantics},
      {ArraySpec{"x_vmem", {rows, kCols}, BlockSpec{{1, kBlockCols}, [](const GridPoint& p) {
                   return GridPoint{p[1], p[0]};
                 }}},
       ArraySpec{"w_vmem", {1, kCols}, BlockSpec{{1, kBlockCols}, by_column}}},
      {ArraySpec{"o_vmem", {1, kCols}, BlockSpec{{1, kBlockCols}, by_column}}});
}

std::vector<std::string> semantics_of(const std::string& s) {
  if (s == "arbitrary,parallel") return {"arbitrary", "parallel"};
  return {"parallel", "arbitrary"};
}

const Registration megacore =
    kernel("pallas_tpu/megacore_reduce", "a reduction grid split across two cores by semantics")
        .param("rows", 2, "rows of x (row blocks of the grid)", 1, 3)
        .choice("semantics", "parallel,arbitrary", {"parallel,arbitrary", "arbitrary,parallel"},
                "dimension_semantics of (column blocks, row blocks)")
        .choice("dma_order", "any", dma_order_names(), "DMA completion policy")
        .preset("correct", {})
        .preset("reduction_parallel", {{"semantics", "arbitrary,parallel"}}, Verdict::race)
        .body([](const Params& p) {
          const std::int64_t rows = p.get_int("rows");
          auto& mesh = make<Mesh>(MeshConfig{1, 2, parse_dma_order(p.get("dma_order")), {}});
          auto x = hbm<int>("x", static_cast<std::size_t>(rows * kCols));
          auto w = hbm<int>("w", kCols), out = hbm<int>("out", kCols);
          for (std::int64_t r = 0; r < rows; ++r)
            for (std::int64_t j = 0; j < kCols; ++j)
              x.init(static_cast<std::size_t>(r * kCols + j), x_of(r, j), 0);
          for (std::int64_t j = 0; j < kCols; ++j) w.init(static_cast<std::size_t>(j), w_of(j), 0);
          auto call = make_call(rows, semantics_of(p.get("semantics")));
          mesh.launch([=] { call({x, w}, {out}); });
          at_exit([=] {
            observe("dmas", std::to_string(Mesh::current().dmas().size()));
            for (std::int64_t j = 0; j < kCols; ++j) {
              int want = 0;
              for (std::int64_t r = 0; r < rows; ++r) want += x_of(r, j) * w_of(j);
              int v = out.raw(static_cast<std::size_t>(j), 0);
              observe(fmt::format("out[{}]", j), std::to_string(v));
              check(v == want, fmt::format("out[{}] = {}, expected {}", j, v, want));
            }
          });
        });

}  // namespace
