// cutlass/grouped_gemm_epilogue: the epilogue of CUTLASS's sm90 array TMA
// warp-specialized cooperative grouped GEMM (NVIDIA/cutlass#2162, fixed in
// v3.9.0). Consumer warps write 128x32 subtiles of D into shared memory,
// fence, meet at a named barrier; warp 0 of Consumer0 stores each subtile
// with a TMA store, commits, and waits `wait_group.read UnacquiredStages`.
// When the next tile belongs to another group, warp 0 rewrites its D
// tensormap (tensormap.replace on the shared copy, cp_fenceproxy to global)
// and acquires it before the next store. Before the fix the last store of
// the tile may not have read the descriptor yet: a race on the descriptor's
// bytes, and a late read sends that subtile into the next group's matrix.
#include <fmt/format.h>

#include "models/gpu/cutlass.hpp"
#include "models/gpu/gpu.hpp"

namespace {
using namespace heddle;
using namespace heddle::gpu;
using namespace heddle::gpu::cutlass;

constexpr std::size_t kRows = 128, kCols = 32;   // the cooperative EpilogueTile
constexpr std::size_t kSubtile = kRows;          // Row elements per TMA store box

// One 32-float row of a subtile: the race detector's unit here (128 bytes),
// which keeps a 128x32 box cheap while its values stay real.
struct Row {
  float v[kCols];
};

Row row_of(float x) {
  Row r;
  for (float& f : r.v) f = x;
  return r;
}
constexpr std::uint32_t kEpilogueBarrier = 1;    // named barrier id

struct Shape {
  long groups, tiles, subtiles, stages, others;
  bool fixed, no_fence;
};

// The value every element of subtile (g, t, s) holds in the correct output.
float value(long g, long t, long s) { return static_cast<float>(1 + g * 100 + t * 10 + s); }

// One consumer thread's part of the epilogue loop. Thread 0 is warp 0 of
// Consumer0 (issue_tma_store); the others only write their rows of sD.
void epilogue(const Shape& sh, int me, int threads, const std::vector<View<Row>>& D,
              const TensorMap& desc, const Shared<std::uint8_t>& smem_desc,
              const Shared<Row>& sD) {
  const bool issuer = me == 0;
  // This thread's rows of each subtile (the last thread takes the remainder).
  const std::size_t part = kSubtile / threads, first = me * part;
  const std::size_t count = me == threads - 1 ? kSubtile - first : part;
  const auto unacquired = static_cast<std::uint32_t>(sh.stages - 1);  // StagesD - 1
  View<Row> stages = sD;
  TensorMap sdesc = smem_desc;
  // tensormaps_init for the first group is host-initialised (it precedes every store).
  long k = 0;
  for (long g = 0; g < sh.groups; ++g) {
    for (long t = 0; t < sh.tiles; ++t) {
      for (long s = 0; s < sh.subtiles; ++s, ++k) {
        View<Row> stage = stages.tile(static_cast<std::size_t>(k % sh.stages), kSubtile);
        stage.slice(first, count).fill(row_of(value(g, t, s)));  // r2s copy of this thread's rows
        if (!sh.no_fence) fence_view_async_shared();  // no_fence: the r2s writes race the store
        bar_sync(kEpilogueBarrier, threads);
        if (issuer) {
          tensor_store(desc, static_cast<std::uint32_t>(s), static_cast<std::uint32_t>(t),
                       span(stage));
          tma_store_arrive();
          bulk_wait_group_read(unacquired);  // producer_acquire: tma_store_wait<Unacquired>
        }
        bar_sync(kEpilogueBarrier, threads);
      }
    }
    bool batch_change = g + 1 < sh.groups;
    if (issuer && batch_change) {  // tensormaps_perform_update + cp_fence_release
      if (sh.fixed) tma_desc_wait_all();  // v3.9.0: commit; wait_group.read 0
      tensormap_replace_global_address(sdesc, current_grid().address_of(D[g + 1].region()));
      syncwarp();
      tma_descriptor_cp_fence_release(desc, sdesc);  // the descriptor write
      tma_descriptor_fence_acquire(desc);            // did_batch_change: fence acquire
    }
  }
  if (issuer) tma_store_wait<0>();  // store_tail
}

// Records every subtile of every D (its value, or "unwritten"/"mixed").
void observe_outputs(const Shape& sh, const std::vector<View<Row>>& D) {
  for (long g = 0; g < sh.groups; ++g)
    for (long t = 0; t < sh.tiles; ++t)
      for (long s = 0; s < sh.subtiles; ++s) {
        View<Row> box = D[g].tile(static_cast<std::size_t>(t * sh.subtiles + s), kSubtile);
        float v = box.raw(0).v[0];
        bool uniform = true;
        for (std::size_t i = 0; i < kSubtile; ++i)
          for (float f : box.raw(i).v) uniform = uniform && f == v;
        std::string text = !uniform ? "mixed" : v == 0 ? "unwritten" : fmt::format("{}", v);
        observe(fmt::format("D{}.tile{}.subtile{}", g, t, s), text);
      }
}

const Registration grouped_gemm_epilogue =
    kernel("cutlass/grouped_gemm_epilogue",
           "sm90 grouped GEMM epilogue: TMA stores vs the tensormap rewrite for the next group "
           "(cutlass#2162)")
        .param("groups", 2, "GEMM groups (each with its own D and descriptor update)", 1, 4)
        .param("tiles", 1, "output tiles per group", 1, 4)
        .param("subtiles", 1, "128x32 subtiles per tile (8 for a 128x256 tile)", 1, 8)
        .param("stages", 2, "StagesD (UnacquiredStages = stages - 1)", 2, 4)
        .param("others", 0, "other consumer threads writing sD rows (besides warp 0)", 0, 3)
        .flag("fixed", false, "commit; wait_group.read 0 before the rewrite (CUTLASS v3.9.0)")
        .flag("no_fence", false, "leave out fence_view_async_shared before the TMA store (a bug)")
        .preset("shipped", {{"fixed", "false"}}, Verdict::race).naming({"tensormap_D"})
        .preset("fixed", {{"fixed", "true"}}).exhaustive()
        .preset("cooperative_shipped", {{"others", "1"}, {"subtiles", "2"}}, Verdict::race)
        .naming({"tensormap_D"})
        // The reporter's 128x256 tile: 8 subtiles, 4 consumer warps.
        .preset("tile_128x256_shipped", {{"others", "3"}, {"subtiles", "8"}}, Verdict::race)
        .naming({"tensormap_D"})
        .preset("tile_128x256_fixed", {{"fixed", "true"}, {"groups", "2"}, {"tiles", "2"},
                                       {"subtiles", "8"}, {"others", "3"}, {"stages", "4"}})
        .body([](const Params& p) {
          Shape sh{p.get_int("groups"), p.get_int("tiles"),  p.get_int("subtiles"),
                   p.get_int("stages"), p.get_int("others"), p.get_bool("fixed"),
                   p.get_bool("no_fence")};
          LaunchConfig cfg{1, 1, {{"c0.warp0"}}};
          for (long i = 1; i <= sh.others; ++i) cfg.threads.push_back({fmt::format("c.warps{}", i)});
          grid(cfg);
          std::vector<View<Row>> D;
          for (long g = 0; g < sh.groups; ++g)
            D.push_back(global<Row>(fmt::format("D{}", g), sh.tiles * sh.subtiles * kSubtile));
          TmaDesc d = describe_boxes(D[0], kSubtile, static_cast<std::uint32_t>(sh.subtiles),
                                     static_cast<std::uint32_t>(sh.tiles));
          TensorMap desc = global_tensormap("tensormap_D", d);
          auto smem_desc = shared_tensormap("smem_tensormap_D", d);
          auto sD = shared<Row>("sD", sh.stages * kSubtile);
          int threads = static_cast<int>(cfg.threads.size());
          current_grid().launch([=](const ThreadInfo& t) {
            epilogue(sh, t.thread, threads, D, desc, smem_desc, sD);
          });
          at_exit([=] { observe_outputs(sh, D); });
        });

}  // namespace
