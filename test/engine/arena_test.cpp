// The execution arena: aligned, disjoint allocations, large ones in blocks
// of their own, and the same addresses in the same order after rewind().
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "checker/engine/arena.hpp"

using namespace heddle;

namespace {
struct Piece {
  std::uintptr_t at;
  std::size_t bytes;
};

// Allocates a fixed mix of sizes and alignments, by bump() and through
// the memory_resource interface, and checks each one's alignment.
std::vector<Piece> fill(Arena& arena) {
  const std::vector<std::pair<std::size_t, std::size_t>> asks = {
      {1, 1}, {24, 8}, {3, 1}, {64, 64}, {40, 16}, {100000, 8}, {7, 4}, {4096, 4096},
      {16, 16}, {20000, 32}, {1, 1}, {48, 8}};
  std::vector<Piece> out;
  for (int round = 0; round < 20; ++round)
    for (std::size_t k = 0; k < asks.size(); ++k) {
      const auto [bytes, align] = asks[k];
      void* p = k % 2 == 0 ? arena.bump(bytes, align) : arena.allocate(bytes, align);
      const auto at = reinterpret_cast<std::uintptr_t>(p);
      REQUIRE(at % align == 0);
      out.push_back({at, bytes});
    }
  return out;
}
}  // namespace

TEST_CASE("arena: aligned and disjoint, and rewind reuses the blocks in order", "[engine]") {
  Arena arena;
  std::vector<Piece> first = fill(arena);
  std::vector<Piece> sorted = first;
  std::sort(sorted.begin(), sorted.end(), [](auto& a, auto& b) { return a.at < b.at; });
  for (std::size_t k = 1; k < sorted.size(); ++k)
    CHECK(sorted[k - 1].at + sorted[k - 1].bytes <= sorted[k].at);
  arena.rewind();
  std::vector<Piece> second = fill(arena);
  REQUIRE(second.size() == first.size());
  for (std::size_t k = 0; k < first.size(); ++k) CHECK(second[k].at == first[k].at);
}
