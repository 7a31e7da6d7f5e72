// ampere/cp_async_pipeline: an sm80 multistage mainloop. One warp (a
// heddle thread) prefetches k-tiles of A into S shared stages with
// cp.async, one cp.async-group per tile, and before using tile k waits
// `cp.async.wait_group S-2`... here `wait_group stages-1` after committing
// tile k+stages-1, the CUTLASS sm80 pattern (cp_async_wait<Stages-2>()
// with one group committed ahead). A second warp sums the stage after a
// __syncthreads. The last tile is short: cp.async's src-size zero-fills
// the rest of the stage. Variants: `wait_depth` waits one group too few
// (cp.async.wait_group stages); `mbarrier` completes each stage through
// cp.async.mbarrier.arrive.noinc on a full[s] mbarrier instead of the
// groups, and `mbarrier_early` has the consumer read before waiting it.
#include <fmt/format.h>

#include "models/gpu/gpu.hpp"

namespace {
using namespace heddle;
using namespace heddle::gpu;

constexpr std::size_t kTile = 4;  // ints per k-tile

// Elements of tile k present in global memory (the last tile is short).
std::size_t tile_elems(long k, long k_tiles) { return k + 1 == k_tiles ? kTile / 2 : kTile; }

void load_tile(const View<int>& A, const View<int>& sA, long k, long k_tiles, long stages) {
  Span dst = span(sA.tile(static_cast<std::size_t>(k % stages), kTile));
  Span src = span(A.tile(static_cast<std::size_t>(k), kTile));
  cp_async(dst, src, tile_elems(k, k_tiles) * sizeof(int));  // cp.async.cg ..., 16, src-size
}

int sum_stage(const View<int>& sA, long k, long stages) {
  int s = 0;
  for (std::size_t i = 0; i < kTile; ++i) s += sA.load(static_cast<std::size_t>(k % stages) * kTile + i);
  return s;
}

const Registration cp_async_pipeline =
    kernel("ampere/cp_async_pipeline",
           "sm80 multistage mainloop: cp.async k-tiles into S stages, waited by group depth")
        .param("stages", 2, "shared-memory stages S", 2, 4)
        .param("k_tiles", 3, "k-tiles", 1, 6)
        .choice("variant", "groups", {"groups", "wait_depth", "mbarrier", "mbarrier_early"},
                "groups: cp.async.wait_group S-1 before each tile; wait_depth: one group too "
                "few; mbarrier: cp.async.mbarrier.arrive.noinc completes each stage; "
                "mbarrier_early: the consumer reads before waiting the stage")
        .preset("groups", {{"variant", "groups"}})
        .preset("wait_depth", {{"variant", "wait_depth"}}, Verdict::race)
        .preset("mbarrier", {{"variant", "mbarrier"}})
        .preset("mbarrier_early", {{"variant", "mbarrier_early"}}, Verdict::race)
        .body([](const Params& p) {
          const long stages = p.get_int("stages"), k_tiles = p.get_int("k_tiles");
          const std::string variant = p.get("variant");
          const bool mbar = variant.rfind("mbarrier", 0) == 0;
          grid(LaunchConfig{1, 1, {{"loader"}, {"summer"}}});
          auto A = global<int>("A", static_cast<std::size_t>(k_tiles) * kTile, 7);
          for (long k = 0; k < k_tiles; ++k)
            for (std::size_t i = 0; i < tile_elems(k, k_tiles); ++i) A.init(k * kTile + i, 1);
          auto sA = shared<int>("sA", static_cast<std::size_t>(stages) * kTile);
          auto sums = global<int>("sums", static_cast<std::size_t>(k_tiles));
          std::vector<Mbarrier*> full, empty;
          for (long s = 0; s < stages; ++s) {
            full.push_back(&make<Mbarrier>(fmt::format("full[{}]", s), 1));
            empty.push_back(&make<Mbarrier>(fmt::format("empty[{}]", s), 1));
          }
          current_grid().launch([=](const ThreadInfo& t) {
            View<int> s = sA;
            if (mbar) {  // warp-specialized: the loader completes full[s] by cp.async
              for (long k = 0; k < k_tiles; ++k) {
                const auto st = static_cast<std::size_t>(k % stages);
                const auto parity = static_cast<std::uint32_t>((k / stages) & 1);
                if (t.thread == 0) {
                  if (k >= stages) empty[st]->wait_parity(parity ^ 1u);
                  load_tile(A, s, k, k_tiles, stages);
                  cp_async_mbarrier_arrive(*full[st], /*noinc=*/true);
                } else {
                  if (variant == "mbarrier_early") (void)s.load(st * kTile);  // bug: not waited
                  full[st]->wait_parity(parity);
                  sums.store(static_cast<std::size_t>(k), sum_stage(s, k, stages));
                  empty[st]->arrive();
                }
              }
              return;
            }
            // One warp loads and sums; the group depth orders each tile.
            if (t.thread != 0) return;
            const auto depth = static_cast<std::uint32_t>(variant == "wait_depth" ? stages : stages - 1);
            for (long k = 0; k < stages - 1 && k < k_tiles; ++k) {
              load_tile(A, s, k, k_tiles, stages);
              cp_async_commit_group();
            }
            for (long k = 0; k < k_tiles; ++k) {
              if (k + stages - 1 < k_tiles) load_tile(A, s, k + stages - 1, k_tiles, stages);
              cp_async_commit_group();  // possibly empty, as CUTLASS commits every iteration
              cp_async_wait_group(depth);  // tile k has landed
              sums.store(static_cast<std::size_t>(k), sum_stage(s, k, stages));
            }
            cp_async_wait_all();
          });
          at_exit([=] {
            for (long k = 0; k < k_tiles; ++k) {
              const int want = static_cast<int>(tile_elems(k, k_tiles));  // zero-filled tail
              observe(fmt::format("sum{}", k), std::to_string(sums.raw(static_cast<std::size_t>(k))));
              check(sums.raw(static_cast<std::size_t>(k)) == want,
                    fmt::format("tile {} summed to {}, expected {}", k,
                                sums.raw(static_cast<std::size_t>(k)), want));
            }
          });
        });

}  // namespace
