// A TMA store issued by a whole warp, as CUTLASS's epilogue issues it
// (`issue_tma_store = warp_idx == 0`): lanes with the same operands issue
// one store; lanes with different operands issue one each (models/ptx/tma.cpp).
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include "test/ptx/ptx_support.hpp"

using namespace heddle;
using namespace heddle::test;

namespace {
// Every lane writes tile[lane % 8] = lane % 8 (one agent: no race), fences,
// then stores the 8-element box at column 0, or (`spread`) odd lanes at
// column 8 (a buffer of up to 64 bytes prints in full).
std::string warp_store(bool spread) {
  return ptx_entry("ws", fmt::format(R"(
  .shared .align 128 .b8 tile[32];
  mov.u32 %r2, %tid.x;
  and.b32 %r6, %r2, 7;
  shl.b32 %r3, %r6, 2;
  mov.u32 %r4, tile;
  add.s32 %r5, %r4, %r3;
  st.shared.u32 [%r5], %r6;
  fence.proxy.async.shared::cta;
  bar.sync 0;
  {}
  mov.u32 %r8, 0;
  cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%rd1, {{%r7, %r8}}], [%r4];
  cp.async.bulk.commit_group;
  cp.async.bulk.wait_group 0;
  ret;)",
                                      spread ? "and.b32 %r7, %r2, 1;\n  shl.b32 %r7, %r7, 3;"
                                             : "mov.u32 %r7, 0;"),
                   {"tmap"});
}

std::vector<std::uint32_t> iota(std::uint32_t n) {
  std::vector<std::uint32_t> v(n);
  for (std::uint32_t i = 0; i < n; ++i) v[i] = i;
  return v;
}
}  // namespace

TEST_CASE("ptx: a TMA store by every lane of a warp with the same operands is one store", "[ptx][bulk]") {
  PtxLaunch l{write_ptx(warp_store(false)), "ws", 32, "tmap=tensormap:out,shape=16x1,box=8x1"};
  // Bounded: 32 separate stores would have orders beyond counting.
  RunConfig bounded;
  bounded.max_executions = 20;
  RunResult r = run_ptx(l, bounded);
  CHECK(r.verdict == Verdict::ok);
  REQUIRE(r.exhaustive);
  CHECK(r.stats.executions == 1);
  std::vector<std::uint32_t> want = iota(8);
  want.resize(16, 0);
  CHECK(final_out(l) == "out=" + u32_hex(want) + "\n");
}

TEST_CASE("ptx: lanes of a TMA store with different coordinates store one box each", "[ptx][bulk]") {
  PtxLaunch l{write_ptx(warp_store(true)), "ws", 32, "tmap=tensormap:out,shape=16x1,box=8x1"};
  std::vector<std::uint32_t> want = iota(8), twice = want;
  twice.insert(twice.end(), want.begin(), want.end());
  CHECK(final_out(l) == "out=" + u32_hex(twice) + "\n");
}
