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

// test/reduce_pair: threads 0 and 1 each bulk-reduce one u32 (staged 12
// and 10) into G[0] (initially 7) with operator `op`, unordered; the final
// G[0] is observed.
const Registration reduce_pair =
    kernel("test/reduce_pair", "two unordered bulk reductions of one operator")
        .choice("op", "and", {"and", "or", "xor", "inc", "dec"}, "the reduction operator")
        .body([](const Params& p) {
          const std::string name = p.get("op");
          const ReduceOp op = name == "and"   ? ReduceOp::bit_and
                              : name == "or"  ? ReduceOp::bit_or
                              : name == "xor" ? ReduceOp::bit_xor
                              : name == "inc" ? ReduceOp::inc
                                              : ReduceOp::dec;
          grid(LaunchConfig{1, 1, {{"t0"}, {"t1"}}});
          auto G = global<std::uint32_t>("G", 1, 7);
          auto s0 = shared<std::uint32_t>("s0", 1, 12), s1 = shared<std::uint32_t>("s1", 1, 10);
          current_grid().launch([=](const ThreadInfo& t) {
            bulk_reduce(G, View<std::uint32_t>(t.thread == 0 ? s0 : s1), op);
            bulk_commit_group();
            bulk_wait_group(0);
          });
          at_exit([=] { observe("G", std::to_string(G.raw(0))); });
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

TEST_CASE("reduce .and/.or/.xor/.inc/.dec combine as PTX defines, in every order",
          "[gpu][reduce]") {
  // From 7 with staged 12 and 10; each order's value is computed here from
  // the PTX rule, not read from a run. and/or/xor: one value in both orders;
  // .inc/.dec wrap at their bound: the two orders differ.
  auto inc = [](std::uint32_t a, std::uint32_t b) { return a >= b ? 0u : a + 1; };
  auto dec = [](std::uint32_t a, std::uint32_t b) { return a == 0 || a > b ? b : a - 1; };
  const std::map<std::string, std::set<std::string>> expected = {
      {"and", {std::to_string(7u & 12u & 10u)}},
      {"or", {std::to_string(7u | 12u | 10u)}},
      {"xor", {std::to_string(7u ^ 12u ^ 10u)}},
      {"inc", {std::to_string(inc(inc(7, 12), 10)), std::to_string(inc(inc(7, 10), 12))}},
      {"dec", {std::to_string(dec(dec(7, 12), 10)), std::to_string(dec(dec(7, 10), 12))}},
  };
  for (const auto& [op, values] : expected) {
    INFO(op);
    std::set<std::string> want;
    for (const auto& v : values) want.insert("G=" + v + "\n");
    auto dfs = test::outcomes("test/reduce_pair", {{"op", op}}, test::with_strategy("dfs"));
    auto dpor = test::outcomes("test/reduce_pair", {{"op", op}}, RunConfig{});
    CHECK(dfs.verdicts == std::set<std::string>{"ok"});
    CHECK(dpor.final_states == dfs.final_states);
    CHECK(dfs.final_states == want);
  }
  // Bitwise operators on floats and counters on anything but .u32 are model errors.
  CHECK_THROWS_AS(reduction<float>(ReduceOp::bit_or), ModelError);
  CHECK_THROWS_AS(reduction<int>(ReduceOp::inc), ModelError);
  CHECK(reduction<std::uint32_t>(ReduceOp::inc).update == 0);
  // and/or/xor commute with their own kind: dpor runs one order of the pair;
  // inc, a plain write, runs both. Two kinds never share a class.
  const auto executions = [](const char* op) { return test::run("test/reduce_pair", {{"op", op}}).stats.executions; };
  for (const char* op : {"and", "or", "xor"}) {
    INFO(op);
    CHECK(executions(op) < executions("inc"));
  }
  std::set<UpdateClass> classes;
  for (ReduceOp op : {ReduceOp::add, ReduceOp::min, ReduceOp::max, ReduceOp::bit_and, ReduceOp::bit_or, ReduceOp::bit_xor})
    classes.insert(reduction<std::uint32_t>(op).update);
  CHECK(classes.size() == 6);
  CHECK(classes.count(0) == 0);
}

TEST_CASE("optimal DPOR on the split-K epilogue: one execution per trace, none sleep-set blocked",
          "[gpu][reduce][dpor]") {
  // A full wait_group needs each op's write phase; declared as a plain read,
  // optimal moved it before one op's write phase (another op's completion
  // looked like it could release it) and ran 3 executions, 2 blocked (issue 47 item 5).
  RunConfig optimal;
  optimal.strategy = "optimal";
  for (const char* tiles : {"2", "3"}) {
    INFO("tiles " << tiles);
    const std::map<std::string, std::string> p{{"splits", "1"}, {"tiles", tiles}};
    RunResult o = test::run("hopper/tma_reduce_splitk", p, optimal);
    RunResult d = test::run("hopper/tma_reduce_splitk", p);
    CHECK(o.verdict == Verdict::ok);
    CHECK(o.stats.sleep_blocked == 0);
    CHECK(o.stats.executions == d.stats.executions);
  }
}
