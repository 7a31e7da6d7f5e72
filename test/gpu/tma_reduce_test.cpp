// TMA and bulk reductions (PTX ISA §9.7.9.25.4.2 cp.reduce.async.bulk):
// async-proxy read-modify-writes of global memory at the write phase that
// do not race with each other, only with unordered plain accesses; the
// source is read by wait_group.read, the writes by wait_group.
#include <catch2/catch.hpp>

#include <algorithm>

#include "models/gpu/gpu.hpp"
#include "test/support/harness.hpp"
#include "test/support/mentions.hpp"
#include "test/support/presets.hpp"

using namespace heddle;
using namespace heddle::gpu;

namespace {
using test::accessed_by;

// test/reduce_vs: thread r bulk-reduces (add) into G[0:2]; thread o does
// `other` to G[0] with no ordering between them: another reduce-add, a
// reduce-max, a plain load, or a plain store.
const Registration reduce_vs =
    kernel("test/reduce_vs", "a bulk reduction and an unordered access to the same bytes")
        .choice("other", "reduce", {"reduce", "max", "load", "store"}, "what the other thread does")
        .body([](const Params& p) {
          const std::string other = p.get("other");
          grid(LaunchConfig{1, 1, {{"r"}, {"o"}}});
          auto G = global<int>("G", 2, 1);
          auto s = shared<int>("s", 4, 3);
          current_grid().launch([=](const ThreadInfo& t) {
            View<int> mine = View<int>(s).tile(static_cast<std::size_t>(t.thread), 2);
            if (t.thread == 0 || other == "reduce" || other == "max") {
              bulk_reduce(G, mine, t.thread == 1 && other == "max" ? ReduceOp::max : ReduceOp::add);
              bulk_commit_group();
              bulk_wait_group(0);
              return;
            }
            if (other == "load") observe("g0", std::to_string(G.load(0)));
            else G.store(0, 9);
          });
        });

}  // namespace

TEST_CASE("reductions race with unordered plain accesses, not with each other",
          "[gpu][reduce]") {
  auto both = test::outcomes("test/reduce_vs", {{"other", "reduce"}}, RunConfig{});
  CHECK(both.verdicts == std::set<std::string>{"ok"});
  CHECK(both.result.exhaustive);
  // Two int reduce-adds commute: one execution, whatever order they land in.
  CHECK(both.result.stats.executions == 1);
  // add and max do not commute (different final values): both orders explored.
  auto mixed = test::outcomes("test/reduce_vs", {{"other", "max"}}, RunConfig{});
  CHECK(mixed.verdicts == std::set<std::string>{"ok"});
  CHECK(mixed.result.stats.executions == 2);
  for (const char* other : {"load", "store"}) {
    INFO(other);
    RunResult r = test::run("test/reduce_vs", {{"other", other}});
    REQUIRE(r.bug);
    CHECK(r.verdict == Verdict::race);
    CHECK(accessed_by(*r.bug, "bulk_reduce.write_gmem"));
    test::check_replay(r);
  }
}

TEST_CASE("TMA reduce split-K: every preset has its verdict, values checked, replayed",
          "[gpu][reduce]") {
  const Kernel& k = find_kernel("hopper/tma_reduce_splitk");
  REQUIRE(k.presets.size() == 4);
  for (const Preset& p : k.presets) {
    INFO(p.name);
    RunResult r = test::run(k.name, p.params);
    CHECK(r.verdict == p.expect);
    if (p.expect == Verdict::ok) CHECK(r.exhaustive);
    if (!r.schedule) continue;
    const std::string v = p.params.at("variant");
    // reuse_early: the stage rewrite against the reduction's source read;
    // read_early, plain_store: a plain access against the reduction's write.
    CHECK(accessed_by(*r.bug, v == "reuse_early" ? "tma_reduce.read_smem"
                                                 : "tma_reduce.write_gmem"));
    CHECK(r.bug->accesses.size() == 2);
    test::check_replay(r);
  }
  for (const char* op : {"min", "max"}) {
    INFO(op);
    CHECK(test::run(k.name, {{"op", op}, {"splits", "3"}, {"tiles", "1"}}).verdict == Verdict::ok);
  }
  CHECK(test::run(k.name, {{"splits", "1"}, {"variant", "plain_store"}}).verdict ==
        Verdict::model_error);
}

TEST_CASE("TMA reduce footprints: int adds commute, float adds are ordered, dpor = dfs",
          "[gpu][reduce][dpor]") {
  const std::map<std::string, std::string> small{{"splits", "2"}, {"tiles", "1"}};
  auto with = [&](const char* dtype) {
    auto p = small;
    p["dtype"] = dtype;
    return p;
  };
  RunResult ints = test::run("hopper/tma_reduce_splitk", with("int"));
  RunResult floats = test::run("hopper/tma_reduce_splitk", with("float"));
  CHECK(ints.verdict == Verdict::ok);
  CHECK(floats.verdict == Verdict::ok);
  CHECK(ints.stats.executions < floats.stats.executions);
  RunConfig dfs;
  dfs.strategy = "dfs";
  for (const char* dtype : {"int", "float"}) {
    INFO(dtype);
    auto a = test::outcomes("hopper/tma_reduce_splitk", with(dtype), dfs);
    auto b = test::outcomes("hopper/tma_reduce_splitk", with(dtype), RunConfig{});
    CHECK(a.verdicts == b.verdicts);
    CHECK(a.final_states == b.final_states);
  }
}
