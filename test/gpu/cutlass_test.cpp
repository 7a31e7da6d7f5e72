// The CUTLASS kernel models: the grouped-GEMM tensormap race (cutlass#2162)
// with its counterexample, replay and corrupted output, and the mainloop
// pipeline with its three injected bugs.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <sstream>

#include "checker/engine/strategy.hpp"
#include "test/support/harness.hpp"

using namespace heddle;

namespace {

// Follows a schedule's steps by agent name, then always the lowest enabled
// agent: with finish_after_bug it runs a counterexample on to the kernel's end.
class PrefixThenFirst final : public Strategy {
 public:
  explicit PrefixThenFirst(Schedule s) : s_(std::move(s)) {}
  std::string name() const override { return "test/prefix_then_first"; }
  bool begin_execution() override { return !ran_; }
  AgentId pick(const Choice& c) override {
    while (pos_ < s_.steps.size() && s_.steps[pos_].is_choice()) ++pos_;
    if (pos_ < s_.steps.size()) {
      const std::string& want = s_.steps[pos_++].agent;
      for (AgentId id : c.enabled)
        if (c.execution.agents()[index(id)]->name == want) return id;
      throw std::logic_error("prefix step " + want + " is not enabled");
    }
    return c.enabled.front();
  }
  std::uint32_t choose(std::uint32_t, const ExecutionRecord&) override { return 0; }
  void end_execution(const ExecutionRecord&) override { ran_ = true; }
  bool exhaustive() const override { return false; }

 private:
  Schedule s_;
  std::size_t pos_ = 0;
  bool ran_ = false;
};

const bool registered = [] {
  register_strategy("test/prefix_then_first", [](const RunConfig& c) -> std::unique_ptr<Strategy> {
    return std::make_unique<PrefixThenFirst>(*c.replay);
  });
  return true;
}();

std::map<std::string, std::string> lines(const std::string& state) {
  std::map<std::string, std::string> out;
  std::istringstream in(state);
  for (std::string l; std::getline(in, l);) {
    auto eq = l.find('=');
    out[l.substr(0, eq)] = l.substr(eq + 1);
  }
  return out;
}

const char* kEpilogue = "cutlass/grouped_gemm_epilogue";
const char* kEpilogueFile = "kernels/cutlass/grouped_gemm_epilogue.cpp";

}  // namespace

TEST_CASE("grouped GEMM epilogue as shipped: the descriptor write races with the in-flight "
          "store's descriptor read",
          "[gpu][cutlass]") {
  RunResult r = test::run(kEpilogue);
  REQUIRE(r.verdict == Verdict::race);
  REQUIRE(r.bug->accesses.size() == 2);
  const AccessInfo& w = r.bug->accesses[0];
  const AccessInfo& rd = r.bug->accesses[1];
  CHECK(w.agent == "c0.warp0");
  CHECK(w.op == "tensormap.cp_fenceproxy");
  CHECK(w.write);
  CHECK(w.region == "tensormap_D");
  CHECK(w.at == test::source_line(kEpilogueFile, "// the descriptor write"));
  CHECK(rd.agent == "tma_store sD[0:128] -> tensormap_D box (0, 0)");  // named by what it moves
  CHECK(rd.op == "tma.read_desc");
  CHECK(rd.proxy == "tensormap");
  CHECK_FALSE(rd.write);
  CHECK(w.step < rd.step);  // harmful order: rewrite first, then the late read
  // The store is still pending at the rewrite: none of its phases ran before.
  const auto& steps = r.schedule->steps;
  for (std::uint32_t i = 0; i + 1 < w.step; ++i) CHECK(steps[i].agent != rd.agent);
  CHECK(steps[rd.step - 1].op == "read_desc(tensormap_D)");
  // Replay round trip: the same report.
  RunResult again = test::replay(*r.schedule);
  REQUIRE(again.bug);
  CHECK(report_to_json(*again.bug) == r.schedule->bug);
}

TEST_CASE("grouped GEMM epilogue fixed (v3.9.0): verified, one output, every subtile right",
          "[gpu][cutlass]") {
  auto o = test::outcomes(kEpilogue, {{"fixed", "true"}}, {});
  CHECK(o.result.exhaustive);
  CHECK(o.verdicts == std::set<std::string>{"ok"});
  REQUIRE(o.final_states.size() == 1);
  // groups=2, tiles=1, subtiles=1: D{g} holds 1 + 100 g.
  CHECK(*o.final_states.begin() == "D0.tile0.subtile0=1\nD1.tile0.subtile0=101\n");
}

TEST_CASE("grouped GEMM epilogue: the racy schedule's output differs in exactly one 128x32 "
          "subtile, sent to the next group's D",
          "[gpu][cutlass]") {
  for (std::string subtiles : {"1", "2"}) {
    INFO("subtiles=" << subtiles);
    std::map<std::string, std::string> p{{"subtiles", subtiles}};
    RunResult racy = test::run(kEpilogue, p);
    REQUIRE(racy.schedule);
    p["fixed"] = "true";
    RunConfig once;
    once.max_executions = 1;  // every race-free execution has the same output (test above)
    auto good = test::outcomes(kEpilogue, p, once);
    REQUIRE(good.final_states.size() == 1);
    const Kernel& k = find_kernel(kEpilogue);
    RunConfig cont;
    cont.strategy = "test/prefix_then_first";
    cont.replay = racy.schedule;
    cont.finish_after_bug = true;
    std::string final_state, target;
    const std::string store = racy.bug->accesses[1].agent;
    explore(k, k.resolve(racy.schedule->params), cont, [&](const ExecutionRecord& ex, Ending) {
      final_state = ex.final_state();
      for (const Event& e : ex.trace())
        if (ex.agents()[index(e.agent)]->name == store && std::string(e.op) == "write_gmem")
          target = ex.object_name(e.object);
    });
    auto bad = lines(final_state), want = lines(*good.final_states.begin());
    REQUIRE(bad.size() == want.size());
    std::vector<std::string> differ;
    for (auto& [key, v] : want)
      if (bad[key] != v) differ.push_back(key);
    REQUIRE(differ.size() == 1);
    std::string last = fmt::format("D0.tile0.subtile{}", std::stoi(subtiles) - 1);
    CHECK(differ[0] == last);
    CHECK(bad[last] == "unwritten");
    CHECK(target == "D1");  // the late descriptor read sent the box to group 1's D
  }
}

TEST_CASE("grouped GEMM epilogue: every shape races as shipped and not when fixed",
          "[gpu][cutlass]") {
  struct Shape { const char* groups; const char* tiles; const char* subtiles; const char* stages; };
  for (Shape s : {Shape{"2", "1", "1", "3"}, Shape{"3", "1", "1", "2"}, Shape{"2", "2", "1", "2"},
                  Shape{"2", "1", "2", "2"}, Shape{"2", "1", "3", "4"}}) {
    std::map<std::string, std::string> p{{"groups", s.groups}, {"tiles", s.tiles},
                                         {"subtiles", s.subtiles}, {"stages", s.stages}};
    INFO(fmt::format("groups={} tiles={} subtiles={} stages={}", s.groups, s.tiles, s.subtiles,
                     s.stages));
    RunResult racy = test::run(kEpilogue, p);
    CHECK(racy.verdict == Verdict::race);
    if (racy.bug) CHECK(racy.bug->accesses[1].op == "tma.read_desc");
    p["fixed"] = "true";
    RunConfig budget;
    budget.max_executions = 3000;  // dfs cannot exhaust the larger shapes
    CHECK(test::run(kEpilogue, p, budget).verdict == Verdict::ok);
  }
}

TEST_CASE("pipeline_tma_async: the correct ring verifies, each injected bug is found",
          "[gpu][cutlass]") {
  struct Variant { const char* name; Verdict expect; };
  for (Variant v : {Variant{"correct", Verdict::ok}, Variant{"early_release", Verdict::race},
                    Variant{"skip_empty_wait", Verdict::race},
                    Variant{"wrong_phase", Verdict::deadlock}}) {
    for (const char* consumers : {"1", "2"}) {
      INFO(v.name << " consumers=" << consumers);
      RunResult r = test::run("cutlass/pipeline_tma_async",
                              {{"variant", v.name}, {"consumers", consumers}});
      CHECK(r.verdict == v.expect);
      if (v.expect == Verdict::ok) CHECK(r.exhaustive);
      if (!r.schedule) continue;
      RunResult again = test::replay(*r.schedule);
      REQUIRE(again.bug);
      CHECK(report_to_json(*again.bug) == r.schedule->bug);
    }
  }
}

TEST_CASE("every cutlass preset has its documented verdict under every exhaustive strategy",
          "[gpu][cutlass]") {
  // dfs runs every buggy preset and the fixed ones it can exhaust; the
  // shipped configurations (tile_128x256_fixed: 8 subtiles, 4 warps;
  // four_stages_two_consumers) are verified by dpor alone.
  const std::set<std::string> too_big_for_dfs = {"tile_128x256_fixed",
                                                 "four_stages_two_consumers", "three_stages"};
  int presets = 0;
  for (const auto& [name, k] : kernels()) {
    if (name.rfind("cutlass/", 0) != 0) continue;
    for (const Preset& p : k.presets) {
      for (const std::string strategy : {"dfs", "dpor"}) {
        auto all = strategy_names();
        if (std::find(all.begin(), all.end(), strategy) == all.end()) continue;
        if (strategy == "dfs" && too_big_for_dfs.count(p.name) > 0) continue;
        // dfs over the correct wgmma mainloop is millions of interleavings;
        // wgmma_test.cpp compares dfs and dpor on a smaller one.
        if (strategy == "dfs" && name == "cutlass/wgmma_mainloop" && p.expect == Verdict::ok)
          continue;
        INFO(name << " preset " << p.name << " strategy " << strategy);
        RunConfig c;
        c.strategy = strategy;
        if (p.expect == Verdict::ok) c.max_executions = 200000;
        RunResult r = test::run(name, p.params, c);
        CHECK(r.verdict == p.expect);
        if (p.expect == Verdict::ok) CHECK(r.exhaustive);
      }
      ++presets;
    }
  }
  CHECK(presets == 15);  // grouped GEMM epilogue, pipeline_tma_async, wgmma_mainloop
}
