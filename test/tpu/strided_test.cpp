// Strided DMAs (issue 52): a block of a bigger array is one DMA moving equal
// runs evenly spaced, as Mosaic issues one descriptor per block; blocks
// side by side do not overlap in the footprint.
#include <catch2/catch.hpp>

#include <vector>

#include "models/tpu/pipeline.hpp"

using namespace heddle;

namespace {
struct Run {
  std::size_t first, count, run_size, runs, end;
  bool operator==(const Run&) const = default;
};
std::vector<Run> runs_of(const std::vector<std::int64_t>& elems, std::size_t base = 0) {
  std::vector<Run> out;
  for (const auto& p : tpu::strided_runs(tpu::Place{nullptr, base, 1000}, elems))
    out.push_back({p.first, p.count, p.run_size(), p.runs(), p.end()});
  return out;
}
}  // namespace

TEST_CASE("strided_runs: a 2-D block of a 2-D array is one strided place", "[tpu]") {
  using tpu::block_elements;
  const auto loc = std::source_location::current();
  // Block (1, 1) of shape (2, 2) in a 4x6 array: elements 14, 15, 20, 21.
  auto elems = block_elements({4, 6}, {2, 2}, {1, 1}, "x", loc);
  CHECK(runs_of(elems) == std::vector<Run>{{14, 4, 2, 2, 22}});
  // A contiguous range stays one run; an offset array shifts it.
  CHECK(runs_of({3, 4, 5}, 10) == std::vector<Run>{{13, 3, 3, 1, 16}});
  // A 3-D block (2, 2, 2) of a (4, 4, 4) array: runs of 2 every 4 within a
  // plane, then a jump to the next plane: two strided places.
  auto cube = block_elements({4, 4, 4}, {2, 2, 2}, {0, 0, 0}, "x", loc);
  CHECK(runs_of(cube) == std::vector<Run>{{0, 4, 2, 2, 6}, {16, 4, 2, 2, 22}});
  // Runs of unequal length are not one box.
  CHECK(runs_of({0, 1, 4, 8, 9}).size() == 3);
}
