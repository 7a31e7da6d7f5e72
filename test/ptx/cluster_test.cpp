// Clusters in the PTX front end: the cluster special registers and launch
// shapes, distributed shared memory through mapa and .shared::cluster,
// barrier.cluster, mbarriers reached from a peer CTA with
// fence.mbarrier_init, and the token form of mbarrier waits.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include "checker/engine/errors.hpp"
#include "test/ptx/ptx_support.hpp"
#include "test/support/harness.hpp"

using namespace heddle;
using namespace heddle::test;

namespace {

std::string module(const std::string& name, const std::string& body, const std::string& directives = "") {
  return ptx_entry(name, body, {"out"}, directives);
}

// Packs special registers into one word, 4 bits each, stored at out[slot]
// of the CTA's linear %ctaid (two words per CTA).
std::string pack(const std::vector<std::string>& regs, int slot) {
  std::string s = "  mov.u32 %r3, 0;\n";
  for (std::size_t i = 0; i < regs.size(); ++i) {
    if (regs[i] == "%is_explicit_cluster")  // a .pred register (PTX ISA 10)
      s += "  mov.pred %p3, %is_explicit_cluster;\n  selp.u32 %r2, 1, 0, %p3;\n";
    else
      s += fmt::format("  mov.u32 %r2, {};\n", regs[i]);
    s += fmt::format("  shl.b32 %r2, %r2, {};\n  or.b32 %r3, %r3, %r2;\n", 4 * i);
  }
  return s + fmt::format(R"(  mov.u32 %r4, %ctaid.y;
  mov.u32 %r5, %nctaid.x;
  mov.u32 %r6, %ctaid.x;
  mad.lo.u32 %r4, %r4, %r5, %r6;
  mul.wide.u32 %rd2, %r4, 8;
  add.s64 %rd2, %rd2, {};
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r3;
)",
                         4 * slot);
}

std::string specials_kernel() {
  return module("ids", pack({"%ctaid.x", "%ctaid.y", "%cluster_ctarank", "%cluster_nctarank",
                             "%clusterid.x", "%clusterid.y", "%nclusterid.x", "%nclusterid.y"}, 0) +
                           pack({"%cluster_ctaid.x", "%cluster_ctaid.y", "%cluster_nctaid.x",
                                 "%cluster_nctaid.y", "%is_explicit_cluster"}, 1));
}

}  // namespace

TEST_CASE("ptx: the cluster special registers of a 4x2 grid in 2x2 clusters", "[ptx][cluster]") {
  PtxLaunch l{write_ptx(specials_kernel()), "ids", 1, "out=buffer:64"};
  l.cluster = "2,2";
  l.grid = "4,2";
  Outcomes o = outcomes(build_ptx(l), ptx_values(l), RunConfig{});
  REQUIRE(o.verdicts == std::set<std::string>{"ok"});
  std::vector<std::uint32_t> want;
  for (std::uint32_t y = 0; y < 2; ++y)
    for (std::uint32_t x = 0; x < 4; ++x) {  // PTX ISA 10: ranks x-first inside the cluster
      std::uint32_t rank = x % 2 + 2 * (y % 2);
      std::uint32_t a[8] = {x, y, rank, 4, x / 2, y / 2, 2, 1};
      std::uint32_t b[5] = {x % 2, y % 2, 2, 2, 1};
      std::uint32_t w0 = 0, w1 = 0;
      for (int i = 0; i < 8; ++i) w0 |= a[i] << (4 * i);
      for (int i = 0; i < 5; ++i) w1 |= b[i] << (4 * i);
      want.push_back(w0);
      want.push_back(w1);
    }
  CHECK(o.final_states == std::set<std::string>{"out=" + u32_hex(want) + "\n"});
}

TEST_CASE("ptx: .reqnctapercluster shapes the launch; a disagreeing --cluster is a usage error", "[ptx][cluster]") {
  const std::string body = pack({"%cluster_nctarank", "%cluster_ctarank", "%is_explicit_cluster"}, 0);
  PtxLaunch l{write_ptx(module("req", body, " .reqnctapercluster 2, 1, 1")), "req", 1, "out=buffer:16", 2};
  CHECK(final_out(l) == "out=" + u32_hex({2 | 0 << 4 | 1 << 8, 0, 2 | 1 << 4 | 1 << 8, 0}) + "\n");
  l.cluster = "1";
  CHECK_THROWS_WITH(build_ptx(l), Catch::Contains("requires clusters of 2x1x1"));
  l.cluster = "2";
  l.ctas = 3;
  CHECK_THROWS_WITH(build_ptx(l), Catch::Contains("must divide the grid"));
  PtxLaunch plain{write_ptx(module("plain", body)), "plain", 1, "out=buffer:16", 2};
  CHECK(final_out(plain) == "out=" + u32_hex({1, 0, 1, 0}) + "\n");  // implicit 1x1x1 clusters
  PtxLaunch exp{write_ptx(module("exp", body, " .explicitcluster")), "exp", 1, "out=buffer:16", 2};
  CHECK_THROWS_WITH(build_ptx(exp), Catch::Contains("launch it with --cluster"));
}

namespace {

// Each CTA writes rank+10 to its own buf, meets the other at the cluster
// barrier (`arrive` as given, "" for none), then reads the peer's buf
// through mapa (generic or .shared::cluster) and stores it at out[rank].
std::string dsmem(const std::string& arrive, bool generic) {
  const std::string wait = arrive.empty() ? "" : "barrier.cluster.wait.aligned;";
  const std::string read = generic ? R"(  mov.u64 %rd4, buf;
  cvta.shared.u64 %rd4, %rd4;
  mapa.u64 %rd5, %rd4, %r3;
  ld.u32 %r6, [%rd5];)"
                                   : R"(  mov.u32 %r4, buf;
  mapa.shared::cluster.u32 %r5, %r4, %r3;
  ld.shared::cluster.u32 %r6, [%r5];)";
  return module("dsmem", fmt::format(R"(
  .shared .align 4 .b8 buf[16];
  mov.u32 %r1, %cluster_ctarank;
  add.u32 %r2, %r1, 10;
  st.shared.u32 [buf], %r2;
  {}
  {}
  xor.b32 %r3, %r1, 1;
{}
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r6;
  ret;)",
                                     arrive, wait, read));
}

PtxLaunch pair_launch(const std::string& text, const std::string& kernel, const std::string& args) {
  PtxLaunch l{write_ptx(text), kernel, 1, args, 2};
  l.cluster = "2";
  return l;
}

}  // namespace

TEST_CASE("ptx: distributed shared memory through mapa, ordered by barrier.cluster", "[ptx][cluster]") {
  for (const char* arrive : {"barrier.cluster.arrive;", "barrier.cluster.arrive.release.aligned;"})
    for (bool generic : {false, true}) {
      CAPTURE(arrive, generic);
      CHECK(final_out(pair_launch(dsmem(arrive, generic), "dsmem", "out=buffer:8")) ==
            "out=" + u32_hex({11, 10}) + "\n");
    }
  for (const char* arrive : {"", "barrier.cluster.arrive.relaxed.aligned;"}) {
    CAPTURE(arrive);  // no barrier, or one whose arrive releases nothing (PTX ISA 9.7.13.3)
    RunResult r = run_ptx(pair_launch(dsmem(arrive, false), "dsmem", "out=buffer:8"));
    REQUIRE(r.verdict == Verdict::race);
    CHECK_THAT(r.bug->title, Catch::Contains("buf@cta"));
  }
}

TEST_CASE("ptx: a mapa to a rank outside the cluster is a model error at its line", "[ptx][cluster]") {
  std::string text = module("far", R"(
  .shared .align 4 .b8 buf[16];
  mov.u32 %r4, buf;
  mapa.shared::cluster.u32 %r5, %r4, 2;
  ret;)");
  RunResult r = run_ptx(pair_launch(text, "far", "out=buffer:8"));
  REQUIRE(r.verdict == Verdict::model_error);
  CHECK_THAT(r.bug->title, Catch::Contains("CTA rank 2 is outside the cluster of 2 CTAs"));
}

namespace {

// Rank 0 inits its mbarrier; both CTAs pass the cluster barrier with a
// relaxed arrive (after fence.mbarrier_init when `fence`); rank 1 stores 77
// into rank 0's data and arrives on rank 0's mbarrier remotely; rank 0
// waits on it and copies data to out.
std::string remote_arrive(bool fence) {
  return module("remote", fmt::format(R"(
  .shared .align 8 .b64 bar;
  .shared .align 4 .b8 data[16];
  mov.u32 %r1, %cluster_ctarank;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra $INITED;
  mbarrier.init.shared::cta.b64 [bar], 1;
$INITED:
  {}
  barrier.cluster.arrive.relaxed.aligned;
  barrier.cluster.wait.aligned;
  @%p1 bra $PRODUCER;
$WAIT:
  mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 %p2, [bar], 0;
  @!%p2 bra $WAIT;
  ld.shared.u32 %r2, [data];
  st.global.u32 [%rd1], %r2;
  ret;
$PRODUCER:
  mov.u32 %r3, data;
  mapa.shared::cluster.u32 %r4, %r3, 0;
  st.shared::cluster.u32 [%r4], 77;
  mov.u32 %r5, bar;
  mapa.shared::cluster.u32 %r6, %r5, 0;
  mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%r6];
  ret;)",
                                      fence ? "fence.mbarrier_init.release.cluster;" : ""));
}

}  // namespace

TEST_CASE("ptx: a peer CTA arrives on an mbarrier; fence.mbarrier_init orders its init", "[ptx][cluster]") {
  CHECK(final_out(pair_launch(remote_arrive(true), "remote", "out=buffer:4")) == "out=" + u32_hex({77}) + "\n");
  // PTX ISA 9.7.13.4: without the fence the relaxed arrive releases nothing,
  // so the peer's use of the barrier is unordered with its init.
  RunResult r = run_ptx(pair_launch(remote_arrive(false), "remote", "out=buffer:4"));
  REQUIRE(r.verdict == Verdict::race);
  CHECK_THAT(r.bug->title, Catch::Contains("bar@cta0"));
}

namespace {

// Lane 0 of each of two warps arrives on one mbarrier; warp 1 writes data
// (before its arrive, or after it when `late`), warp 0 waits with the token
// its arrive returned (no .parity) and copies data to out.
std::string token_wait(bool late) {
  const char* write = "st.shared.v4.u32 [data], {1, 2, 3, 4};";
  return module("token", fmt::format(R"(
  .shared .align 8 .b64 bar;
  .shared .align 16 .b8 data[16];
  mov.u32 %r1, %tid.x;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra $SYNC;
  mbarrier.init.shared::cta.b64 [bar], 2;
$SYNC:
  bar.sync 0;
  and.b32 %r2, %r1, 31;
  setp.ne.u32 %p1, %r2, 0;
  @%p1 bra $END;
  setp.lt.u32 %p2, %r1, 32;
  @%p2 bra $CONSUMER;
  {}
  mbarrier.arrive.shared::cta.b64 %rd2, [bar];
  {}
  bra.uni $END;
$CONSUMER:
  mbarrier.arrive.shared::cta.b64 %rd2, [bar];
$WAIT:
  mbarrier.try_wait.shared::cta.b64 %p3, [bar], %rd2;
  @!%p3 bra $WAIT;
  ld.shared.v4.u32 {{%r6, %r7, %r8, %r9}}, [data];
  st.global.v4.u32 [%rd1], {{%r6, %r7, %r8, %r9}};
$END:
  ret;)",
                                     late ? "" : write, late ? write : ""));
}

}  // namespace

TEST_CASE("ptx: mbarrier.try_wait with the state token of mbarrier.arrive", "[ptx][cluster]") {
  CHECK(final_out({write_ptx(token_wait(false)), "token", 64, "out=buffer:16"}) ==
        "out=" + u32_hex({1, 2, 3, 4}) + "\n");
  RunResult r = run_ptx({write_ptx(token_wait(true)), "token", 64, "out=buffer:16"});
  REQUIRE(r.verdict == Verdict::race);
  CHECK_THAT(r.bug->title, Catch::Contains("data"));
  // The token is the phase before the arrive (PTX ISA 9.7.13.15.13): the
  // arrive that completes phase 0 returns 0, and test_wait of it is true.
  std::string once = module("once", R"(
  .shared .align 8 .b64 bar;
  mbarrier.init.shared::cta.b64 [bar], 1;
  mbarrier.arrive.shared::cta.b64 %rd2, [bar];
  mbarrier.test_wait.shared::cta.b64 %p1, [bar], %rd2;
  selp.u32 %r1, 5, 6, %p1;
  st.global.u32 [%rd1], %r1;
  cvt.u32.u64 %r2, %rd2;
  st.global.u32 [%rd1+4], %r2;
  ret;)");
  CHECK(final_out({write_ptx(once), "once", 1, "out=buffer:8"}) == "out=" + u32_hex({5, 0}) + "\n");
}

TEST_CASE("ptx kernels: nvcc's cluster exchange (cooperative_groups) verifies; without the sync it races", "[ptx][cluster]") {
  // .reqnctapercluster 2, 1, 1 and .explicitcluster come from __cluster_dims__:
  // no --cluster needed. Each CTA reads its neighbour's slot[t] = 100 * rank + t.
  PtxLaunch synced{ptx_data("cluster_exchange.ptx"), "exchange_synced", 8, "out=buffer:64", 2};
  std::vector<std::uint32_t> want;
  for (std::uint32_t rank = 0; rank < 2; ++rank)
    for (std::uint32_t t = 0; t < 8; ++t) want.push_back(100 * ((rank + 1) % 2) + t);
  CHECK(final_out(synced) == "out=" + u32_hex(want) + "\n");
  PtxLaunch unsynced{ptx_data("cluster_exchange.ptx"), "exchange_unsynced", 8, "out=buffer:64", 2};
  RunResult r = run_ptx(unsynced);
  REQUIRE(r.verdict == Verdict::race);
  CHECK_THAT(r.bug->title, Catch::Contains("slot@cta"));
  // The read is in exchange<false>, inlined: its call site follows (issue 50.6).
  const std::string call = source_line("kernels/cuda/cluster_exchange.cu", "exchange<false>(out)");
  CHECK_THAT(format_report(*r.bug), Catch::Contains(source_line("kernels/cuda/cluster_exchange.cu",
                                                                "out[rank * blockDim.x + threadIdx.x]") +
                                                    " via :" + call.substr(call.rfind(':') + 1) +
                                                    " via cluster_exchange.ptx:"));
}

TEST_CASE("ptx: --cluster on the command line; a bad shape exits 2", "[ptx][cluster]") {
  std::string path = write_ptx(dsmem("barrier.cluster.arrive;", false));
  CliResult r = cli(fmt::format("run --ptx {} --kernel dsmem --grid 2 --block 1 --cluster 2 --arg out=buffer:8", path));
  CHECK(r.code == 0);
  r = cli(fmt::format("run --ptx {} --kernel dsmem --grid 3 --block 1 --cluster 2 --arg out=buffer:8", path));
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Catch::Contains("--cluster 2x1x1: each dimension must divide the grid's (3x1x1)"));
}

TEST_CASE("ptx: getctarank of a peer's mapa address and of an own generic address", "[ptx][cluster]") {
  std::string text = module("rank", R"(
  .shared .align 4 .b8 buf[16];
  mov.u32 %r1, %cluster_ctarank;
  xor.b32 %r3, %r1, 1;
  mov.u32 %r4, buf;
  mapa.shared::cluster.u32 %r5, %r4, %r3;
  getctarank.shared::cluster.u32 %r6, %r5;
  mov.u64 %rd4, buf;
  cvta.shared.u64 %rd4, %rd4;
  getctarank.u64 %r7, %rd4;
  mul.wide.u32 %rd2, %r1, 8;
  add.s64 %rd3, %rd1, %rd2;
  st.global.v2.u32 [%rd3], {%r6, %r7};
  ret;)");
  CHECK(final_out(pair_launch(text, "rank", "out=buffer:16")) == "out=" + u32_hex({1, 0, 0, 1}) + "\n");
}
