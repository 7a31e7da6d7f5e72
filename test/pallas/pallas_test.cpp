// Real Pallas kernels exported from JAX (test/pallas/data, made by
// test/pallas/export_data.py from kernels/pallas_tpu/*.py) run through the
// Pallas front end: verdicts, Python source lines in reports, outputs
// checked against JAX's, replay, and the errors for bad exports.
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "checker/engine/errors.hpp"
#include "checker/registry.hpp"
#include "test/support/harness.hpp"

using namespace heddle;

namespace {
const char* kRingPy = "kernels/pallas_tpu/ring_reuse_recv_sem.py";

std::string data(const std::string& name) {
  return fmt::format("{}/test/pallas/data/{}.json", HEDDLE_SOURCE_ROOT, name);
}

std::string kernel(const std::string& name) { return "pallas:" + data(name); }

// Writes a copy of an export with `edit` applied, into a fresh directory.
template <class F>
std::string edited(const std::string& name, F edit) {
  std::ifstream in(data(name));
  auto j = nlohmann::json::parse(in);
  edit(j);
  std::string path = test::temp_dir() + "/" + name + ".json";
  std::ofstream(path) << j.dump();
  return path;
}
}  // namespace

TEST_CASE("pallas: correct kernels are verified exhaustively, outputs equal to JAX's", "[pallas]") {
  auto name = GENERATE(as<std::string>{}, "ring_fixed_3", "right_permute_3", "all_gather_3",
                       "all_reduce_2", "double_buffered", "matmul", "local_ops");
  INFO(name);
  auto r = test::run(kernel(name));
  CHECK(r.verdict == Verdict::ok);
  CHECK(r.exhaustive);
  CHECK(r.stats.executions >= 1);  // the coarser relation leaves one trace for most of them
}

TEST_CASE("pallas: the fixed ring is verified exhaustively at 4 devices", "[pallas][.long]") {
  auto r = test::run(kernel("ring_fixed_4"));
  CHECK(r.verdict == Verdict::ok);
  CHECK(r.exhaustive);
}

TEST_CASE("pallas: the ring reusing one receive semaphore races, at its Python lines", "[pallas]") {
  auto r = test::run(kernel("ring_reuse_recv_sem"));
  REQUIRE(r.verdict == Verdict::race);
  REQUIRE(r.bug);
  REQUIRE(r.bug->accesses.size() == 2);
  std::vector<std::string> at{r.bug->accesses[0].at, r.bug->accesses[1].at};
  std::sort(at.begin(), at.end());
  CHECK(at[0] == test::source_line(kRingPy, "dma.start()"));           // the DMA's write
  CHECK(at[1] == test::source_line(kRingPy, "= recv_buf[pl.ds"));      // the core's read
  REQUIRE(r.counterexample);
  CHECK(r.counterexample->preemptions == 0);
  REQUIRE(r.schedule);
  for (const auto& step : r.schedule->steps)  // every step names the user's Python
    CHECK(step.at.find("kernels/pallas_tpu/") == 0);
  auto again = test::run(kernel("ring_reuse_recv_sem"));  // found on every run, the same way
  REQUIRE(again.schedule);
  CHECK(again.schedule->steps == r.schedule->steps);
  auto replayed = test::replay(*r.schedule);
  CHECK(replayed.verdict == Verdict::race);
  REQUIRE(replayed.schedule);
  CHECK(replayed.schedule->steps == r.schedule->steps);
}

TEST_CASE("pallas: JAX's eager DMAs hide the ring race, on_wait shows it", "[pallas]") {
  auto eager = test::run(kernel("ring_reuse_recv_sem"), {{"dma_order", "eager"}});
  CHECK(eager.verdict == Verdict::ok);
  CHECK(eager.stopped_by == "restriction");  // covered every eager order, not every order
  auto on_wait = test::run(kernel("ring_reuse_recv_sem"), {{"dma_order", "on_wait"}});
  CHECK(on_wait.verdict == Verdict::race);
}

TEST_CASE("pallas: an output different from JAX's is an assertion at the kernel", "[pallas]") {
  auto path = edited("right_permute_3", [](nlohmann::json& j) {
    j["expected_outputs"][0][1][0] = 12345;
  });
  auto r = test::run("pallas:" + path);
  REQUIRE(r.verdict == Verdict::assertion);
  CHECK(r.bug->title.find("but JAX computes 12345") != std::string::npos);
}

TEST_CASE("pallas: an unsupported primitive is a usage error naming it and its line", "[pallas]") {
  auto path = edited("double_buffered", [](nlohmann::json& j) {
    j["kernel"]["eqns"][1]["prim"] = "erf_inv";
  });
  try {
    find_kernel("pallas:" + path);
    FAIL("no error");
  } catch (const UsageError& e) {
    std::string what = e.what();
    CHECK(what.find("primitive erf_inv") != std::string::npos);
    CHECK(what.find(test::source_line("kernels/pallas_tpu/pipeline.py", "o_ref[...] =")) !=
          std::string::npos);
  }
  auto cli = test::cli(fmt::format("run --pallas '{}'", path));
  CHECK(cli.code == 2);
  CHECK(cli.err.find("erf_inv") != std::string::npos);
}

TEST_CASE("pallas: heddle run --pallas FILE on the command line", "[pallas][cli]") {
  auto dir = test::temp_dir();
  auto r = test::cli(fmt::format("run --pallas '{}' --out '{}/cex.json'", data("ring_reuse_recv_sem"), dir));
  CHECK(r.code == 1);
  CHECK(r.out.find("race: data race on dev") != std::string::npos);
  CHECK(r.out.find(test::source_line(kRingPy, "dma.wait_recv()")) != std::string::npos);
  auto replay = test::cli(fmt::format("replay '{}/cex.json'", dir));
  CHECK(replay.code == 1);
  auto ok = test::cli(fmt::format("run --pallas '{}'", data("ring_fixed_3")));
  CHECK(ok.code == 0);
  CHECK(ok.out.find("verified") != std::string::npos);
  auto missing = test::cli("run --pallas /nonexistent.json");
  CHECK(missing.code == 2);
  auto both = test::cli(fmt::format("run demo/handoff --pallas '{}'", data("ring_fixed_3")));
  CHECK(both.code == 2);
}

// Found by the fuzzer (test/fuzz/fuzz_pallas.cpp): damaged exports that once
// failed inside an execution (an internal error, an exception, a DMA out of
// its buffer) are usage errors at load that name the problem.
TEST_CASE("pallas: a damaged export is a usage error naming what is wrong", "[pallas]") {
  struct Damage {
    const char* expect;
    std::function<void(nlohmann::json&)> edit;
  };
  const std::vector<Damage> damages = {
      {"reads variable 999 before it is bound", [](auto& j) { j["kernel"]["eqns"][1]["in"][0]["var"] = 999; }},
      {"dtype int33 is not supported", [](auto& j) { j["operands"][0]["aval"]["dtype"] = "int33"; }},
      {"is a int32 block of a int16 array", [](auto& j) { j["operands"][0]["aval"]["dtype"] = "int16"; }},
      {"each array holds at most", [](auto& j) { j["operands"][0]["aval"]["shape"][0] = 1 << 30; }},
      {"heddle runs 1 to 64 kernel threads", [](auto& j) { j["mesh"]["devices"] = 100000; }},
      {"expected an integer, got 2.5e+98", [](auto& j) { j["mesh"]["devices"] = 2.5e98; }},  // UBSan
      {"a jaxpr's input is a literal", [](auto& j) { j["kernel"]["invars"][0] = {{"lit", 1}, {"dtype", "int32"}}; }},
  };
  for (const auto& d : damages) {
    INFO(d.expect);
    auto path = edited("double_buffered", d.edit);
    try {
      find_kernel("pallas:" + path);
      FAIL("no error");
    } catch (const UsageError& e) {
      CHECK_THAT(e.what(), Catch::Contains(d.expect));
    }
  }
  auto path = edited("double_buffered", damages[2].edit);
  CHECK(test::cli(fmt::format("run --pallas '{}'", path)).code == 2);
}
