// The bulk copies of the PTX front end: non-tensor cp.async.bulk loads,
// stores and peer-CTA copies, cp.reduce.async.bulk, TMA tiles of 3 and 5
// dimensions, multicast loads, .L2::cache_hint operands, prefetches and
// tensormap.replace of the shape fields.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include "checker/engine/errors.hpp"
#include "test/ptx/ptx_support.hpp"
#include "test/support/harness.hpp"

using namespace heddle;
using namespace heddle::test;

namespace {

// Fills in[0..15] = 3*i+1 with generic stores (%rd2 = in).
const char* kFill = R"(
  mov.u32 %r1, 0;
$FILL:
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd3, %rd2, %rd3;
  mad.lo.u32 %r2, %r1, 3, 1;
  st.global.u32 [%rd3], %r2;
  add.u32 %r1, %r1, 1;
  setp.lt.u32 %p1, %r1, 16;
  @%p1 bra $FILL;
)";

std::vector<std::uint32_t> filled() {
  std::vector<std::uint32_t> v;
  for (std::uint32_t i = 0; i < 16; ++i) v.push_back(3 * i + 1);
  return v;
}

// in -> sbuf by a bulk load (mbarrier complete_tx), sbuf -> out by a bulk
// store (bulk_group), each with or without .L2::cache_hint; `fence`: the
// proxy fence between the generic fill and the async-proxy load;
// `overwrite`: sbuf is written after the store without wait_group.read.
std::string round_trip(bool hint, bool fence, bool overwrite) {
  const std::string h = hint ? ".L2::cache_hint" : "", policy = hint ? ", %rd5" : "";
  return ptx_entry("trip", fmt::format(R"(
  .shared .align 128 .b8 sbuf[64];
  .shared .align 8 .b64 bar;
{}
  {}
  mov.u64 %rd5, 0x1000000000000000;
  mbarrier.init.shared::cta.b64 [bar], 1;
  mbarrier.arrive.expect_tx.shared::cta.b64 %rd4, [bar], 64;
  cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes{} [sbuf], [%rd2], 64, [bar]{};
$WAIT:
  mbarrier.try_wait.parity.shared::cta.b64 %p2, [bar], 0;
  @!%p2 bra $WAIT;
  cp.async.bulk.global.shared::cta.bulk_group{} [%rd1], [sbuf], 64{};
  cp.async.bulk.commit_group;
  {}
  cp.async.bulk.wait_group 0;
  ret;)",
                                       kFill, fence ? "fence.proxy.async.global;" : "", h, policy, h,
                                       policy, overwrite ? "st.shared.u32 [sbuf], 9;" : ""),
                   {"out", "in"});
}

}  // namespace

TEST_CASE("ptx: non-tensor cp.async.bulk load and store, with and without .L2::cache_hint", "[ptx][bulk]") {
  const std::string want = "in=" + u32_hex(filled()) + "\nout=" + u32_hex(filled()) + "\n";
  for (bool hint : {false, true}) {
    CAPTURE(hint);
    CHECK(final_out({write_ptx(round_trip(hint, true, false)), "trip", 1, "out=buffer:64 in=buffer:64"}) == want);
  }
  // The load reads in the async proxy: the generic fill needs fence.proxy.async.
  RunResult r = run_ptx({write_ptx(round_trip(false, false, false)), "trip", 1, "out=buffer:64 in=buffer:64"});
  REQUIRE(r.verdict == Verdict::race);
  CHECK_THAT(r.bug->title, Catch::Contains("in"));
  // The store reads sbuf until a wait_group(.read) covers it.
  r = run_ptx({write_ptx(round_trip(true, true, true)), "trip", 1, "out=buffer:64 in=buffer:64"});
  REQUIRE(r.verdict == Verdict::race);
  CHECK_THAT(r.bug->title, Catch::Contains("sbuf"));
}

TEST_CASE("ptx: a bulk size that is not a multiple of 16 is a model error", "[ptx][bulk]") {
  std::string text = ptx_entry("odd", R"(
  .shared .align 128 .b8 sbuf[64];
  cp.async.bulk.global.shared::cta.bulk_group [%rd1], [sbuf], 20;
  ret;)");
  RunResult r = run_ptx({write_ptx(text), "odd", 1, "out=buffer:64"});
  REQUIRE(r.verdict == Verdict::model_error);
  CHECK_THAT(r.bug->title, Catch::Contains("multiple of 16"));
}

namespace {

// Rank 0 copies its sbuf (1..8) into rank 1's sbuf with
// cp.async.bulk.shared::cluster.shared::cta, completing on rank 1's
// mbarrier, which rank 1 initialised and armed before the cluster barrier;
// rank 1 waits and stores sbuf[4..7] to out (`early`: before its wait).
std::string peer_copy(bool early) {
  const char* read = "ld.shared.v4.u32 {%r6, %r7, %r8, %r9}, [sbuf+16];";
  return ptx_entry("peer", fmt::format(R"(
  .shared .align 128 .b8 sbuf[32];
  .shared .align 8 .b64 bar;
  mov.u32 %r1, %cluster_ctarank;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra $CONSUMER;
  st.shared.v4.u32 [sbuf], {{1, 2, 3, 4}};
  st.shared.v4.u32 [sbuf+16], {{5, 6, 7, 8}};
  fence.proxy.async.shared::cta;
  barrier.cluster.arrive.aligned;
  barrier.cluster.wait.aligned;
  mov.u32 %r2, sbuf;
  mapa.shared::cluster.u32 %r3, %r2, 1;
  mov.u32 %r4, bar;
  mapa.shared::cluster.u32 %r5, %r4, 1;
  cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes [%r3], [sbuf], 32, [%r5];
  barrier.cluster.arrive.aligned;
  barrier.cluster.wait.aligned;
  ret;
$CONSUMER:
  mbarrier.init.shared::cta.b64 [bar], 1;
  mbarrier.arrive.expect_tx.shared::cta.b64 %rd4, [bar], 32;
  barrier.cluster.arrive.aligned;
  barrier.cluster.wait.aligned;
  {}
$WAIT:
  mbarrier.try_wait.parity.shared::cta.b64 %p2, [bar], 0;
  @!%p2 bra $WAIT;
  {}
  st.global.v4.u32 [%rd1], {{%r6, %r7, %r8, %r9}};
  barrier.cluster.arrive.aligned;
  barrier.cluster.wait.aligned;
  ret;)",
                                       early ? read : "", early ? "" : read));
}

}  // namespace

TEST_CASE("ptx: cp.async.bulk from one CTA's shared memory into a peer's", "[ptx][bulk][cluster]") {
  PtxLaunch l{write_ptx(peer_copy(false)), "peer", 1, "out=buffer:16", 2};
  l.cluster = "2";
  CHECK(final_out(l) == "out=" + u32_hex({5, 6, 7, 8}) + "\n");
  l.file = write_ptx(peer_copy(true));
  RunResult r = run_ptx(l);
  REQUIRE(r.verdict == Verdict::race);
  CHECK_THAT(r.bug->title, Catch::Contains("sbuf@cta1"));
}

TEST_CASE("ptx: cp.reduce.async.bulk adds shared memory into global memory", "[ptx][bulk]") {
  std::string text = ptx_entry("reduce", R"(
  .shared .align 128 .b8 sbuf[16];
  st.shared.v4.u32 [sbuf], {1, 2, 3, 4};
  st.global.v4.u32 [%rd1], {10, 20, 30, 40};
  fence.proxy.async;
  cp.reduce.async.bulk.global.shared::cta.bulk_group.add.u32 [%rd1], [sbuf], 16;
  cp.reduce.async.bulk.global.shared::cta.bulk_group.add.u32 [%rd1], [sbuf], 16;
  cp.async.bulk.commit_group;
  cp.async.bulk.wait_group 0;
  ret;)");
  CHECK(final_out({write_ptx(text), "reduce", 1, "out=buffer:16"}) == "out=" + u32_hex({12, 24, 36, 48}) + "\n");
}

namespace {

// T[i] = i for 16 u32 with generic stores, made visible to TMA reads.
constexpr const char* kFillT = R"(mov.u32 %r1, 0;
$FILL:
  mul.wide.u32 %rd4, %r1, 4;
  add.s64 %rd4, %rd2, %rd4;
  st.global.u32 [%rd4], %r1;
  add.u32 %r1, %r1, 1;
  setp.lt.u32 %p1, %r1, 16;
  @%p1 bra $FILL;
  fence.proxy.async.global;)";

// T[i] = i (16 u32) with generic stores, then a `dims`-d TMA load of the
// box at `coords` of tensormap `map` (with .L2::cache_hint) into sbuf, a
// prefetch of the same box, and sbuf to out.
std::string tile_load(int dims, const std::string& coords) {
  return ptx_entry("tile", fmt::format(R"(
  .shared .align 128 .b8 sbuf[16];
  .shared .align 8 .b64 bar;
  mov.u32 %r10, 0;
  mov.u32 %r11, 1;
  mov.u32 %r12, 1;
  {2}
  mbarrier.init.shared::cta.b64 [bar], 1;
  mbarrier.arrive.expect_tx.shared::cta.b64 %rd5, [bar], 16;
  mov.u64 %rd6, 0;
  cp.async.bulk.prefetch.tensor.{0}d.L2.global.tile [%rd3, {{{1}}}];
  cp.async.bulk.tensor.{0}d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.L2::cache_hint [sbuf], [%rd3, {{{1}}}], [bar], %rd6;
$WAIT:
  mbarrier.try_wait.parity.shared::cta.b64 %p2, [bar], 0;
  @!%p2 bra $WAIT;
  ld.shared.v4.u32 {{%r6, %r7, %r8, %r9}}, [sbuf];
  st.global.v4.u32 [%rd1], {{%r6, %r7, %r8, %r9}};
  ret;)",
                                       dims, coords, kFillT),
                   {"out", "T", "map"});
}

// A dense row-major tensor cut in boxes of one row (models/ptx/tensormap.hpp):
// box (b0, b1, ...) starts at element box_elems * (b0 + n0 * (b1 + n1 * (b2 + ...))).
std::vector<std::uint32_t> box_values(std::uint32_t box_index, std::uint32_t box_elems) {
  std::vector<std::uint32_t> v;
  for (std::uint32_t i = 0; i < box_elems; ++i) v.push_back(box_index * box_elems + i);
  return v;
}

std::string tensor_state(const std::vector<std::uint32_t>& out) {
  std::vector<std::uint32_t> t;
  for (std::uint32_t i = 0; i < 16; ++i) t.push_back(i);
  return "T=" + u32_hex(t) + "\nout=" + u32_hex(out) + "\n";
}

}  // namespace

TEST_CASE("ptx: TMA loads of 3-d and 5-d tiles with .L2::cache_hint, and a prefetch", "[ptx][bulk]") {
  // 3-d: shape 4x2x2, boxes 4x1x1; box (0, 1, 1) is box 0 + 1 * (1 + 2 * 1) = 3.
  PtxLaunch l3{write_ptx(tile_load(3, "%r10, %r11, %r12")), "tile", 1,
               "out=buffer:16 T=buffer:64 map=tensormap:T,shape=4x2x2,box=4x1x1"};
  CHECK(final_out(l3) == tensor_state(box_values(0 + 1 * (1 + 2 * 1), 4)));
  // 5-d: shape 4x1x2x1x2, boxes 4x1x1x1x1; box (0, 0, 1, 0, 1) is 0 + 1 * (0 + 1 * (1 + 2 * (0 + 1 * 1))) = 3.
  PtxLaunch l5{write_ptx(tile_load(5, "%r10, %r10, %r11, %r10, %r12")), "tile", 1,
               "out=buffer:16 T=buffer:64 map=tensormap:T,shape=4x1x2x1x2,box=4x1x1x1x1"};
  CHECK(final_out(l5) == tensor_state(box_values(0 + 1 * (0 + 1 * (1 + 2 * (0 + 1 * 1))), 4)));
  // A 3-d op on a 2-d tensormap is refused at its line.
  PtxLaunch bad{l3.file, "tile", 1, "out=buffer:16 T=buffer:64 map=tensormap:T,shape=4x4,box=4x1"};
  RunResult r = run_ptx(bad);
  REQUIRE(r.verdict == Verdict::model_error);
  CHECK_THAT(r.bug->title, Catch::Contains("3-d TMA operation on tensormap map of rank 2"));
}

namespace {

// Rank 0 fills T (T[i] = i); both CTAs init their mbarrier, fence it, pass
// the cluster barrier and arm it for 16 bytes; rank 0 multicasts the box at
// `coords` of a `dims`-d tensormap to both CTAs (ctaMask 0b11); each CTA
// waits and stores its sbuf at out[4 * rank]; rank 0 runs `rewrite` right
// after its issue, or (`waited`) once its own mbarrier completed.
std::string multicast(int dims, const std::string& coords, const std::string& rewrite = "",
                      bool waited = false) {
  return ptx_entry("mc", fmt::format(R"(
  .shared .align 128 .b8 sbuf[16];
  .shared .align 8 .b64 bar;
  mov.u32 %r10, 0;
  mov.u32 %r11, 1;
  mov.u32 %r13, %cluster_ctarank;
  setp.ne.u32 %p3, %r13, 0;
  @%p3 bra $SKIPFILL;
  {2}
$SKIPFILL:
  mbarrier.init.shared::cta.b64 [bar], 1;
  fence.mbarrier_init.release.cluster;
  barrier.cluster.arrive.relaxed.aligned;
  barrier.cluster.wait.aligned;
  mbarrier.arrive.expect_tx.shared::cta.b64 %rd5, [bar], 16;
  @%p3 bra $WAIT;
  mov.u16 %rs1, 3;
  cp.async.bulk.tensor.{0}d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster [sbuf], [%rd3, {{{1}}}], [bar], %rs1;
  {3}
$WAIT:
  mbarrier.try_wait.parity.shared::cta.b64 %p2, [bar], 0;
  @!%p2 bra $WAIT;
  {4}
  ld.shared.v4.u32 {{%r6, %r7, %r8, %r9}}, [sbuf];
  mul.wide.u32 %rd7, %r13, 16;
  add.s64 %rd7, %rd1, %rd7;
  st.global.v4.u32 [%rd7], {{%r6, %r7, %r8, %r9}};
  ret;)",
                                     dims, coords, kFillT, waited ? "" : rewrite,
                                     waited && !rewrite.empty() ? "@!%p3 " + rewrite : ""),
                   {"out", "T", "map"});
}

}  // namespace

TEST_CASE("ptx: multicast TMA loads of 2-d and 3-d tiles reach every CTA of the mask", "[ptx][bulk][cluster]") {
  struct Case {
    int dims;
    const char* coords;
    const char* map;
    std::uint32_t box;  // the flattened box index (tensormap.hpp)
  };
  const Case cases[] = {{2, "%r10, %r11", "shape=4x4,box=4x1", 1},
                        {3, "%r10, %r11, %r11", "shape=4x2x2,box=4x1x1", 0 + 1 * (1 + 2 * 1)}};
  for (const Case& c : cases) {
    CAPTURE(c.dims);
    PtxLaunch l{write_ptx(multicast(c.dims, c.coords)), "mc", 1,
                fmt::format("out=buffer:32 T=buffer:64 map=tensormap:T,{}", c.map), 2};
    l.cluster = "2";
    std::vector<std::uint32_t> both = box_values(c.box, 4), again = both;
    both.insert(both.end(), again.begin(), again.end());
    CHECK(final_out(l) == tensor_state(both));
  }
}

TEST_CASE("ptx: a multicast load reads its tensormap once: the issuer's own wait orders a rewrite after it",
          "[ptx][bulk][cluster]") {
  // CUTLASS's grouped GEMM (example 57) rewrites its mainloop tensormaps once
  // the producer's own full barrier completes: the other CTA's copy of the
  // same multicast read the descriptor then too (one read per load).
  const std::string args = "out=buffer:32 T=buffer:64 map=tensormap:T,shape=4x4,box=4x1";
  const std::string replace = "tensormap.replace.tile.global_dim.global.b1024.b32 [%rd3], 1, 2;";
  for (bool waited : {true, false}) {
    CAPTURE(waited);
    PtxLaunch l{write_ptx(multicast(2, "%r10, %r11", replace, waited)), "mc", 1, args, 2};
    l.cluster = "2";
    RunResult r = run_ptx(l);
    INFO((r.bug ? format_report(*r.bug) : std::string()));
    // Unwaited, the rewrite races with the load's one read (either CTA's copy).
    CHECK(r.verdict == (waited ? Verdict::ok : Verdict::race));
  }
}

namespace {

// T[i] = i (16 u32), then tensormap.replace of global_dim 1 (to 4) on the
// global tensormap, the proxy fences, a 2-d load of box (0, 3), which only
// the new shape has, and sbuf to out; `stride`: a global_stride replace too
// (`stride` bytes).
std::string replaced(bool replace, std::uint32_t stride) {
  return ptx_entry("rep", fmt::format(R"(
  .shared .align 128 .b8 sbuf[16];
  .shared .align 8 .b64 bar;
  {}
  {}
  {}
  fence.proxy.tensormap::generic.release.gpu;
  fence.proxy.tensormap::generic.acquire.gpu [%rd3], 128;
  mbarrier.init.shared::cta.b64 [bar], 1;
  mbarrier.arrive.expect_tx.shared::cta.b64 %rd5, [bar], 16;
  mov.u32 %r10, 0;
  mov.u32 %r11, 3;
  cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [sbuf], [%rd3, {{%r10, %r11}}], [bar];
$WAIT:
  mbarrier.try_wait.parity.shared::cta.b64 %p2, [bar], 0;
  @!%p2 bra $WAIT;
  ld.shared.v4.u32 {{%r6, %r7, %r8, %r9}}, [sbuf];
  st.global.v4.u32 [%rd1], {{%r6, %r7, %r8, %r9}};
  ret;)",
                                      kFillT, replace ? "tensormap.replace.tile.global_dim.global.b1024.b32 [%rd3], 1, 4;" : "",
                                      stride ? fmt::format("tensormap.replace.tile.global_stride.global.b1024.b64 [%rd3], 0, {};", stride) : ""),
                   {"out", "T", "map"});
}

}  // namespace

TEST_CASE("ptx: tensormap.replace of global_dim and global_stride reshapes later TMA loads", "[ptx][bulk]") {
  const char* args = "out=buffer:16 T=buffer:64 map=tensormap:T,shape=4x2,box=4x1";
  // Row 3 of the reshaped 4x4 tensor, rows 16 bytes apart.
  CHECK(final_out({write_ptx(replaced(true, 0)), "rep", 1, args}) == tensor_state({12, 13, 14, 15}));
  CHECK(final_out({write_ptx(replaced(true, 16)), "rep", 1, args}) == tensor_state({12, 13, 14, 15}));
  // Without the replace, row 3 is outside the 4x2 tensor: zero-filled (PTX ISA 5.5.6).
  CHECK(final_out({write_ptx(replaced(false, 0)), "rep", 1, args}) == tensor_state({0, 0, 0, 0}));
  // Rows 32 bytes apart put row 3 past the 64-byte buffer.
  RunResult r = run_ptx({write_ptx(replaced(true, 32)), "rep", 1, args});
  REQUIRE(r.verdict == Verdict::model_error);
  CHECK_THAT(r.bug->title, Catch::Contains("to unmapped address"));
}

namespace {

// Rank 0 fills in[0..15]; both CTAs arm their mbarrier for 32 bytes after a
// fenced cluster barrier; rank 0 multicasts in[0..7] to both CTAs' sbuf
// (non-tensor cp.async.bulk .multicast::cluster, ctaMask 0b11); each CTA
// waits and stores its sbuf at out[8 * rank].
std::string bulk_multicast() {
  return ptx_entry("bmc", fmt::format(R"(
  .shared .align 128 .b8 sbuf[32];
  .shared .align 8 .b64 bar;
  mov.u32 %r13, %cluster_ctarank;
  setp.ne.u32 %p3, %r13, 0;
  @%p3 bra $SKIPFILL;
{}
  fence.proxy.async.global;
$SKIPFILL:
  mbarrier.init.shared::cta.b64 [bar], 1;
  fence.mbarrier_init.release.cluster;
  barrier.cluster.arrive.relaxed.aligned;
  barrier.cluster.wait.aligned;
  mbarrier.arrive.expect_tx.shared::cta.b64 %rd5, [bar], 32;
  @%p3 bra $WAIT;
  mov.u16 %rs1, 3;
  cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [sbuf], [%rd2], 32, [bar], %rs1;
$WAIT:
  mbarrier.try_wait.parity.shared::cta.b64 %p2, [bar], 0;
  @!%p2 bra $WAIT;
  mul.wide.u32 %rd7, %r13, 32;
  add.s64 %rd7, %rd1, %rd7;
  cp.async.bulk.global.shared::cta.bulk_group [%rd7], [sbuf], 32;
  cp.async.bulk.commit_group;
  cp.async.bulk.wait_group 0;
  ret;)",
                                      kFill),
                   {"out", "in"});
}

}  // namespace

TEST_CASE("ptx: a non-tensor multicast bulk load reaches every CTA of the mask", "[ptx][bulk][cluster]") {
  PtxLaunch l{write_ptx(bulk_multicast()), "bmc", 1, "out=buffer:64 in=buffer:64", 2};
  l.cluster = "2";
  const std::vector<std::uint32_t> all = filled();
  std::vector<std::uint32_t> half(all.begin(), all.begin() + 8), both = half;
  both.insert(both.end(), half.begin(), half.end());
  CHECK(final_out(l) == "in=" + u32_hex(filled()) + "\nout=" + u32_hex(both) + "\n");
}
