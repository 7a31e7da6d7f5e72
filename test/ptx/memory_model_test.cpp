// The PTX memory model (models/ptx/memory_model.cpp): the message-passing
// handshake through a flag, with release/acquire, with fences, at scopes,
// and a spin loop on the flag that waits instead of exploding.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include "test/ptx/ptx_support.hpp"
#include "test/support/harness.hpp"

using namespace heddle;
using namespace heddle::test;

namespace {

// Lane 0 of role 0 (warp 0 of CTA 0) writes data = 42 and then the flag;
// lane 0 of role 1 (warp 1, or CTA 1) spins on the flag, then copies the
// data to out[2]. out = {data, flag, copy}. The strings fill in the
// producer's flag store, the consumer's flag load and what follows it.
std::string message_passing(const char* store, const char* load, const char* after = "") {
  return fmt::format(R"(.version 9.0
.target sm_90a
.address_size 64
.visible .entry mp(.param .u64 out_param)
{{
  .reg .pred %p<4>;
  .reg .b32 %r<9>;
  .reg .b64 %rd<3>;
  ld.param.u64 %rd2, [out_param];
  cvta.to.global.u64 %rd1, %rd2;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %ctaid.x;
  shr.u32 %r3, %r1, 5;
  add.u32 %r3, %r3, %r2;
  and.b32 %r4, %r1, 31;
  setp.ne.u32 %p1, %r4, 0;
  @%p1 bra $DONE;
  setp.ne.u32 %p2, %r3, 0;
  @%p2 bra $CONSUMER;
  mov.u32 %r5, 42;
  st.global.u32 [%rd1], %r5;
  mov.u32 %r8, 1;
  {} [%rd1+4], %r8;
  bra.uni $DONE;
$CONSUMER:
$SPIN:
  {} %r6, [%rd1+4];
  setp.eq.u32 %p3, %r6, 0;
  @%p3 bra $SPIN;
  {}
  ld.global.u32 %r7, [%rd1];
  st.global.u32 [%rd1+8], %r7;
$DONE:
  ret;
}}
)",
                     store, load, after);
}

RunResult run_mp(const std::string& text, int threads, int ctas) {
  return run_ptx(PtxLaunch{write_ptx(text), "mp", threads, "out=buffer:12", ctas});
}

}  // namespace

TEST_CASE("ptx: st.release / ld.acquire of a flag orders the data; without either, a race", "[ptx][memory_model]") {
  std::string ok = message_passing("st.release.gpu.global.u32", "ld.acquire.gpu.global.u32");
  for (int ctas : {1, 2}) {  // two warps of one CTA; one warp in each of two CTAs
    PtxLaunch l{write_ptx(ok), "mp", ctas == 1 ? 64 : 32, "out=buffer:12", ctas};
    CHECK(final_out(l) == "out=" + u32_hex({42, 1, 42}) + "\n");
    RunResult r = run_ptx(l);
    CHECK(r.verdict == Verdict::ok);
    CHECK(r.exhaustive);
    // The spin waits for the flag: the consumer's load is before or after the
    // producer's store, nothing more (a spinning trip would make unboundedly many).
    CHECK(r.stats.executions <= 2);
  }
  for (const std::string& racy :
       {message_passing("st.relaxed.gpu.global.u32", "ld.acquire.gpu.global.u32"),
        message_passing("st.release.gpu.global.u32", "ld.relaxed.gpu.global.u32"),
        message_passing("st.global.u32", "ld.acquire.gpu.global.u32")}) {
    RunResult r = run_mp(racy, 64, 1);
    REQUIRE(r.verdict == Verdict::race);
    CHECK_THAT(r.bug->title, Catch::Contains("out"));
  }
}

TEST_CASE("ptx: fence.acq_rel with relaxed flag accesses orders the data (fence-fence pattern)", "[ptx][memory_model]") {
  // The producer fences between data and flag; membar.gl is the same fence.
  for (const char* fence : {"fence.acq_rel.gpu;", "membar.gl;"}) {
    std::string store = fmt::format("{}\n  st.relaxed.gpu.global.u32", fence);
    RunResult r = run_mp(message_passing(store.c_str(), "ld.relaxed.gpu.global.u32", fence), 64, 1);
    CHECK(r.verdict == Verdict::ok);
    CHECK(r.exhaustive);
    // Without the consumer's fence its relaxed load acquires nothing.
    r = run_mp(message_passing(store.c_str(), "ld.relaxed.gpu.global.u32"), 64, 1);
    CHECK(r.verdict == Verdict::race);
  }
}

TEST_CASE("ptx: a .cta release and acquire synchronize within a CTA only", "[ptx][memory_model]") {
  std::string cta = message_passing("st.release.cta.global.u32", "ld.acquire.cta.global.u32");
  CHECK(run_mp(cta, 64, 1).verdict == Verdict::ok);
  RunResult r = run_mp(cta, 32, 2);  // producer and consumer in different CTAs
  CHECK(r.verdict == Verdict::race);
  std::string mixed = message_passing("st.release.gpu.global.u32", "ld.acquire.cta.global.u32");
  CHECK(run_mp(mixed, 32, 2).verdict == Verdict::race);
  std::string gpu = message_passing("st.release.gpu.global.u32", "ld.acquire.sys.global.u32");
  CHECK(run_mp(gpu, 32, 2).verdict == Verdict::ok);
}

TEST_CASE("ptx: a poll that counts its trips is not a spin: it may give up", "[ptx][memory_model]") {
  // Two trips at most, then the consumer copies whatever it has (0 or 42):
  // the loop carries its counter %r8 from trip to trip, so a trip that reads
  // the same flag is not a repeat, and the give-up executions must exist.
  std::string text = message_passing("st.release.gpu.global.u32", "ld.acquire.gpu.global.u32");
  const std::string spin = "$SPIN:\n  ld.acquire.gpu.global.u32 %r6, [%rd1+4];\n  setp.eq.u32 %p3, %r6, 0;\n  @%p3 bra $SPIN;";
  const std::string poll =
      "  mov.u32 %r8, 0;\n$SPIN:\n  add.u32 %r8, %r8, 1;\n  ld.acquire.gpu.global.u32 %r6, [%rd1+4];\n"
      "  setp.eq.u32 %p3, %r6, 0;\n  setp.lt.u32 %p2, %r8, 2;\n  and.pred %p3, %p3, %p2;\n  @%p3 bra $SPIN;\n"
      "  setp.eq.u32 %p3, %r6, 0;\n  @%p3 bra $DONE;";
  REQUIRE(text.find(spin) != std::string::npos);
  text.replace(text.find(spin), spin.size(), poll);
  PtxLaunch l{write_ptx(text), "mp", 64, "out=buffer:12", 1};
  Outcomes o = outcomes(build_ptx(l), ptx_values(l), RunConfig{});
  CHECK(o.verdicts == std::set<std::string>{"ok"});
  // Gave up (no copy) or saw the flag and copied 42.
  CHECK(o.final_states == std::set<std::string>{"out=" + u32_hex({42, 1, 0}) + "\n",
                                                "out=" + u32_hex({42, 1, 42}) + "\n"});
}

TEST_CASE("ptx: atom and red releases pair with an ld.acquire", "[ptx][memory_model]") {
  for (const char* store : {"atom.release.gpu.global.exch.b32 %r7,", "red.release.gpu.global.add.u32"})
    CHECK(run_mp(message_passing(store, "ld.acquire.gpu.global.u32"), 64, 1).verdict == Verdict::ok);
  // A relaxed red orders nothing.
  CHECK(run_mp(message_passing("red.relaxed.gpu.global.add.u32", "ld.acquire.gpu.global.u32"), 64, 1).verdict ==
        Verdict::race);
}
