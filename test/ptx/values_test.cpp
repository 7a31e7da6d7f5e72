// The values the PTX front end computes: f16/bf16 arithmetic, conversions
// to and from f16/bf16/fp8 and the bit instructions against the vectors of
// test/ptx/data/values.txt (numpy/ml_dtypes and the ISA's pseudocode, made
// by make_values.py), the fp8 wgmma against plain arithmetic, and the
// warp-wide instructions (vote, activemask, ldmatrix, stmatrix, trap,
// setmaxnreg, the clocks) on small kernels.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <regex>
#include <sstream>

#include "checker/engine/errors.hpp"
#include "models/ptx/program.hpp"
#include "test/ptx/ptx_support.hpp"
#include "test/support/harness.hpp"

using namespace heddle;
using namespace heddle::test;

namespace {

struct Vector {
  std::string instr;
  int dest_bits = 32;
  std::vector<std::pair<int, std::uint64_t>> sources;  // width, bits
  std::uint64_t want = 0;
};

std::vector<Vector> vectors() {
  std::ifstream in(ptx_data("values.txt"));
  std::vector<Vector> out;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream f(line);
    Vector v;
    std::string sources, want;
    std::getline(f, v.instr, '\t');
    std::string bits;
    std::getline(f, bits, '\t');
    v.dest_bits = std::stoi(bits);
    std::getline(f, sources, '\t');
    std::getline(f, want);
    v.want = std::stoull(want, nullptr, 16);
    std::istringstream s(sources);
    for (std::string src; s >> src;)
      v.sources.emplace_back(std::stoi(src.substr(0, src.find(':'))), std::stoull(src.substr(src.find(':') + 1), nullptr, 16));
    out.push_back(v);
  }
  return out;
}

// One kernel runs every vector on immediates moved into registers and
// compares each result with the expected bits: out = {mismatches, first bad index}.
std::string vector_kernel(const std::vector<Vector>& vs) {
  std::string body;
  for (std::size_t i = 0; i < vs.size(); ++i) {
    const Vector& v = vs[i];
    std::string ops;
    for (std::size_t k = 0; k < v.sources.size(); ++k) {
      auto [w, bits] = v.sources[k];
      std::string reg = fmt::format("{}{}", w == 16 ? "%hs" : "%rs", k + 1);
      body += fmt::format("  mov.b{} {}, {:#x};\n", w, reg, bits);
      ops += ", " + reg;
    }
    std::string dest = v.dest_bits == 16 ? "%hd" : "%wd";
    body += fmt::format("  {} {}{};\n", v.instr, dest, ops);
    body += fmt::format("  setp.ne.b{} %p1, {}, {:#x};\n", v.dest_bits, dest, v.want);
    body += "  selp.u32 %t, 1, 0, %p1;\n  add.u32 %bad, %bad, %t;\n";
    body += fmt::format("  @%p1 min.u32 %first, %first, {};\n", i);
  }
  return fmt::format(R"(.version 9.0
.target sm_90a
.address_size 64
.visible .entry values(.param .u64 out_param)
{{
  .reg .pred %p<3>;
  .reg .b16 %hs<5>, %hd;
  .reg .b32 %rs<5>, %wd, %bad, %first, %t;
  .reg .b64 %a<3>;
  ld.param.u64 %a1, [out_param];
  cvta.to.global.u64 %a2, %a1;
  mov.u32 %bad, 0;
  mov.u32 %first, 0xffffffff;
{}  st.global.u32 [%a2], %bad;
  st.global.u32 [%a2+4], %first;
  ret;
}}
)",
                     body);
}

// A one-warp kernel `name(out)` with %r1 = %laneid, %rd2 = out (global), then `body`.
std::string lanes_kernel(const std::string& name, const std::string& body, const std::string& decls = "") {
  return fmt::format(R"(.version 9.0
.target sm_90a
.address_size 64
.visible .entry {}(.param .u64 out_param)
{{
  .reg .pred %p<4>;
  .reg .b32 %r<12>;
  .reg .b64 %rd<6>;
{}
  ld.param.u64 %rd1, [out_param];
  cvta.to.global.u64 %rd2, %rd1;
  mov.u32 %r1, %laneid;
{}
}}
)",
                     name, decls, body);
}

}  // namespace

TEST_CASE("ptx values: f16/bf16 arithmetic, conversions and bit instructions match numpy and the ISA", "[ptx][values]") {
  std::vector<Vector> vs = vectors();
  REQUIRE(vs.size() > 600);
  std::string state = final_out({write_ptx(vector_kernel(vs)), "values", 32, "out=buffer:8"});
  std::string good = "out=" + u32_hex({0, 0xffffffffu}) + "\n";
  if (state != good) {
    std::uint32_t first = static_cast<std::uint32_t>(std::stoull(state.substr(12, 8), nullptr, 16));
    first = __builtin_bswap32(first);
    INFO("first mismatch: " << (first < vs.size() ? vs[first].instr : "?") << " vector " << first);
    CHECK(state == good);
  }
}

TEST_CASE("ptx values: add.f16 is a float add (1.0 + 1.0 = 2.0), not an integer add", "[ptx][values]") {
  std::string k = lanes_kernel("one", R"(
  mov.b16 %h1, 0x3c00;
  add.f16 %h2, %h1, %h1;
  st.global.b16 [%rd2], %h2;
  ret;)", "  .reg .b16 %h<3>;");
  CHECK(final_out({write_ptx(k), "one", 1, "out=buffer:2"}) == "out=0040\n");
}

TEST_CASE("ptx values: forms that are not interpreted are refused at load with their line", "[ptx][values]") {
  for (const char* bad : {"add.rn.f16.tf32 %r2, %r1, %r1;", "ex2.approx.f16 %h1, %h1;",
                          "atom.global.add.noftz.f16 %h1, [%rd2], %h1;", "setmaxnreg.inc.sync.aligned.u32 100;",
                          "ldmatrix.sync.aligned.m16n16.x1.trans.shared.b8 {%r2}, [%r1];"}) {
    INFO(bad);
    std::string text = lanes_kernel("bad", fmt::format("  {}\n  ret;", bad), "  .reg .b16 %h<3>;");
    long line = 1 + std::count(text.begin(), text.begin() + static_cast<long>(text.find(bad)), '\n');
    try {
      build_ptx({write_ptx(text), "bad", 32, "out=buffer:4"});
      FAIL("accepted");
    } catch (const UsageError& e) {
      CHECK_THAT(e.what(), Catch::Contains(fmt::format(":{}:", line)));
    }
  }
}

TEST_CASE("ptx values: fp8 wgmma m64n8k32 (four type pairs) and tf32 m64n8k8 compute plain arithmetic's product", "[ptx][values][wgmma]") {
  for (const char* entry : {"wgmma_fp8_e4m3_e4m3", "wgmma_fp8_e4m3_e5m2", "wgmma_fp8_e5m2_e4m3", "wgmma_fp8_e5m2_e5m2",
                            "wgmma_tf32"}) {
    INFO(entry);
    PtxLaunch l{ptx_data("wgmma_fp8.ptx"), entry, 128, "out=buffer:2048 bad=buffer:4"};
    CHECK_THAT(final_out(l), Catch::Contains("bad=00000000\n"));
  }
}

TEST_CASE("ptx values: vote.sync and activemask over all lanes and a divergent subset", "[ptx][values]") {
  std::string k = lanes_kernel("vote", R"(
  rem.u32 %r2, %r1, 3;
  setp.eq.u32 %p1, %r2, 0;
  vote.sync.ballot.b32 %r3, %p1, 0xffffffff;
  vote.sync.any.pred %p2, %p1, 0xffffffff;
  vote.sync.all.pred %p3, %p1, 0xffffffff;
  selp.u32 %r4, 1, 0, %p2;
  selp.u32 %r5, 1, 0, %p3;
  setp.lt.u32 %p2, %r1, 8;
  @!%p2 bra $DONE;
  vote.sync.ballot.b32 %r6, %p1, 0xff;
  activemask.b32 %r7;
  vote.sync.uni.pred %p3, %p2, 0xff;
  selp.u32 %r8, 1, 0, %p3;
$DONE:
  setp.ne.u32 %p3, %r1, 0;
  @%p3 bra $END;
  st.global.u32 [%rd2], %r3;
  st.global.u32 [%rd2+4], %r4;
  st.global.u32 [%rd2+8], %r5;
  st.global.u32 [%rd2+12], %r6;
  st.global.u32 [%rd2+16], %r7;
  st.global.u32 [%rd2+20], %r8;
$END:
  ret;)");
  std::uint32_t every_third = 0, low = 0;
  for (int l = 0; l < 32; l += 3) every_third |= 1u << l;
  for (int l = 0; l < 8; l += 3) low |= 1u << l;
  CHECK(final_out({write_ptx(k), "vote", 32, "out=buffer:24"}) ==
        "out=" + u32_hex({every_third, 1, 0, low, 0xff, 1}) + "\n");
}

namespace {

// FNV-1a of bytes, as LaunchState::observe_buffers hashes a buffer over 64 bytes.
std::string fnv(const std::vector<std::uint8_t>& bytes) {
  std::uint64_t h = 1469598103934665603ull;
  for (std::uint8_t b : bytes) h = (h ^ b) * 1099511628211ull;
  return fmt::format("{:016x}", h);
}

void put16(std::vector<std::uint8_t>& v, std::uint16_t x) {
  v.push_back(static_cast<std::uint8_t>(x & 0xff));
  v.push_back(static_cast<std::uint8_t>(x >> 8));
}

}  // namespace

TEST_CASE("ptx values: ldmatrix .x4 (plain and .trans) and stmatrix .trans follow the ISA's fragment layout", "[ptx][values]") {
  // Lane l fills row l % 8 of matrix l / 8 with (8 l + c) for column c, then
  // every lane loads the four matrices (plain into out, .trans into tr: lane
  // t's register i at byte 16 t + 4 i) and stores the plain fragments back
  // with stmatrix.trans into sN, which lane l copies row by row into back.
  std::string k = lanes_kernel("matrix", R"(
  mov.u32 %r2, sM;
  shl.b32 %r3, %r1, 4;
  add.u32 %r4, %r2, %r3;
  shl.b32 %r5, %r1, 3;
  mov.u32 %r6, 0;
$FILL:
  add.u32 %r7, %r5, %r6;
  shl.b32 %r8, %r6, 1;
  add.u32 %r9, %r4, %r8;
  st.shared.u16 [%r9], %r7;
  add.u32 %r6, %r6, 1;
  setp.lt.u32 %p1, %r6, 8;
  @%p1 bra $FILL;
  ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%q0, %q1, %q2, %q3}, [%r4];
  ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%q4, %q5, %q6, %q7}, [%r4];
  mul.wide.u32 %rd3, %r1, 16;
  ld.param.u64 %rd4, [tr_param];
  cvta.to.global.u64 %rd4, %rd4;
  add.s64 %rd4, %rd4, %rd3;
  add.s64 %rd3, %rd2, %rd3;
  st.global.v4.b32 [%rd3], {%q0, %q1, %q2, %q3};
  st.global.v4.b32 [%rd4], {%q4, %q5, %q6, %q7};
  mov.u32 %r2, sN;
  add.u32 %r10, %r2, %r3;
  stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [%r10], {%q0, %q1, %q2, %q3};
  ld.shared.v4.b32 {%q0, %q1, %q2, %q3}, [%r10];
  mul.wide.u32 %rd3, %r1, 16;
  ld.param.u64 %rd5, [back_param];
  cvta.to.global.u64 %rd5, %rd5;
  add.s64 %rd5, %rd5, %rd3;
  st.global.v4.b32 [%rd5], {%q0, %q1, %q2, %q3};
  ret;)", "  .reg .b32 %q<8>;\n  .shared .align 16 .b8 sM[512];\n  .shared .align 16 .b8 sN[512];");
  k = std::regex_replace(k, std::regex("\\(\\.param \\.u64 out_param\\)"),
                         "(.param .u64 out_param, .param .u64 tr_param, .param .u64 back_param)");
  auto m = [](int i, int r, int c) { return static_cast<std::uint16_t>(64 * i + 8 * r + c); };
  std::vector<std::uint8_t> plain, trans, back;
  for (int t = 0; t < 32; ++t)
    for (int i = 0; i < 4; ++i) {
      int r = t / 4, c = 2 * (t % 4);
      put16(plain, m(i, r, c));
      put16(plain, m(i, r, c + 1));
      put16(trans, m(i, c, r));
      put16(trans, m(i, c + 1, r));
    }
  for (int l = 0; l < 32; ++l)
    for (int c = 0; c < 8; ++c) put16(back, m(l / 8, c, l % 8));  // row l % 8 of matrix l / 8, transposed
  CHECK(final_out({write_ptx(k), "matrix", 32, "out=buffer:512 tr=buffer:512 back=buffer:512"}) ==
        fmt::format("back={}\nout={}\ntr={}\n", fnv(back), fnv(plain), fnv(trans)));
}

TEST_CASE("ptx values: trap is a model error at its line", "[ptx][values]") {
  std::string text = lanes_kernel("trapped", "  setp.eq.u32 %p1, %r1, 5;\n  @%p1 trap;\n  ret;");
  RunResult r = run_ptx({write_ptx(text), "trapped", 32, "out=buffer:4"});
  REQUIRE(r.verdict == Verdict::model_error);
  CHECK_THAT(format_report(*r.bug), Catch::Contains("trap"));
  long line = 1 + std::count(text.begin(), text.begin() + static_cast<long>(text.find("@%p1 trap")), '\n');
  CHECK_THAT(format_report(*r.bug), Catch::Contains(fmt::format("line {}", line)));
}

TEST_CASE("ptx values: a spin on %clock64/%globaltimer ends; setmaxnreg and nanosleep run", "[ptx][values]") {
  std::string k = lanes_kernel("spin", R"(
  setmaxnreg.dec.sync.aligned.u32 40;
  mov.u64 %rd3, %clock64;
$SPIN:
  nanosleep.u32 100;
  mov.u64 %rd4, %globaltimer;
  sub.s64 %rd5, %rd4, %rd3;
  setp.lt.u64 %p1, %rd5, 1000000000;
  @%p1 bra $SPIN;
  mov.u32 %r2, %smid;
  mov.u32 %r3, %nsmid;
  setp.lt.u32 %p2, %r2, %r3;
  selp.u32 %r4, 7, 9, %p2;
  setp.ne.u32 %p3, %r1, 0;
  @%p3 bra $END;
  st.global.u32 [%rd2], %r4;
$END:
  ret;)");
  CHECK(final_out({write_ptx(k), "spin", 32, "out=buffer:4"}) == "out=" + u32_hex({7}) + "\n");
}

TEST_CASE("ptx values: the census mode records each refusal with its line and goes on", "[ptx][values]") {
  std::string text = lanes_kernel("census", "  ex2.approx.f16 %h1, %h1;\n  add.f16 %h1, %h1, %h1;\n  ret;",
                                  "  .reg .b16 %h<3>;");
  ptx::Module m = ptx::parse(text, "census.ptx");
  std::vector<ptx::Refusal> refusals;
  ptx::Program p = ptx::decode(m, "census", 0, &refusals);
  REQUIRE(refusals.size() == 1);
  CHECK(refusals[0].what == "ex2.approx.f16");
  CHECK(refusals[0].line == 1 + std::count(text.begin(), text.begin() + static_cast<long>(text.find("ex2")), '\n'));
  CHECK(std::any_of(p.code.begin(), p.code.end(), [](const ptx::Instr& in) { return in.opcode == "add.f16"; }));
}
