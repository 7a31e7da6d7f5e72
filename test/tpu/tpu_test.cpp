// The Pallas TPU model: the seed's ring bug, completion policies, exit
// checks, replay, and the simple collectives' outputs.
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "test/support/harness.hpp"
#include "test/tpu/poset.hpp"

using namespace heddle;
using heddle::test::run;

namespace {
const char* kRing = "pallas_tpu/ring_reuse_recv_sem";
const char* kRingFile = "kernels/pallas_tpu/ring_reuse_recv_sem.cpp";

// Replays a run's counterexample and checks it shows the same bug.
void require_replays(const RunResult& r) {
  REQUIRE(r.schedule);
  auto again = test::replay(*r.schedule);
  REQUIRE(again.bug);
  CHECK(again.verdict == r.verdict);
  CHECK(again.bug->title == r.bug->title);
  CHECK(again.bug->details == r.bug->details);
  REQUIRE(again.bug->accesses.size() == r.bug->accesses.size());
  for (std::size_t i = 0; i < r.bug->accesses.size(); ++i) {
    CHECK(again.bug->accesses[i].agent == r.bug->accesses[i].agent);
    CHECK(again.bug->accesses[i].at == r.bug->accesses[i].at);
    CHECK(again.bug->accesses[i].step == r.bug->accesses[i].step);
  }
  REQUIRE(again.schedule);
  CHECK(again.schedule->steps == r.schedule->steps);
}

// Index of the first schedule step of `agent` whose operation starts with `op`.
std::ptrdiff_t step_of(const Schedule& s, const std::string& agent, const std::string& op) {
  for (std::size_t i = 0; i < s.steps.size(); ++i)
    if (s.steps[i].agent == agent && s.steps[i].op.rfind(op, 0) == 0)
      return static_cast<std::ptrdiff_t>(i);
  return -1;
}

bool has_note(const RunResult& r, const std::string& text) {
  return std::any_of(r.notes.begin(), r.notes.end(),
                     [&](const std::string& n) { return n.find(text) != std::string::npos; });
}

RunConfig budget(std::uint64_t executions) {
  RunConfig c;
  c.max_executions = executions;
  return c;
}

/// Plain dfs: its execution counts are the linear extensions that
/// test/tpu/poset.hpp counts by brute force.
RunConfig dfs() {
  RunConfig c;
  c.strategy = "dfs";
  return c;
}
}  // namespace

TEST_CASE("ring reusing one receive semaphore races, with the same counterexample each run",
          "[tpu]") {
  // Two runs: in this process, and `heddle run` in another one, whose
  // counterexample file must hold the same schedule.
  auto first = run(kRing);
  REQUIRE(first.verdict == Verdict::race);
  std::string dir = test::temp_dir();
  auto cli = test::cli(std::string("run ") + kRing + " --out " + dir + "/cex.json");
  CHECK(cli.code == 1);
  CHECK(cli.out.find("race: data race on dev") != std::string::npos);
  CHECK(cli.out.find(fmt::format("executions: {} ", first.stats.executions)) != std::string::npos);
  auto second = load_schedule(dir + "/cex.json");
  CHECK(second.steps == first.schedule->steps);
  CHECK(second.bug == first.schedule->bug);
  auto replay = test::cli("replay " + dir + "/cex.json");
  CHECK(replay.code == 1);
  CHECK(replay.out.find(first.bug->title) != std::string::npos);
  // The core reads a receive slot; the DMA into it writes it afterwards.
  const auto& read = first.bug->accesses[0];
  const auto& write = first.bug->accesses[1];
  CHECK(read.op == "load");
  CHECK(read.at == test::source_line(kRingFile, "// read the received slot"));
  CHECK(write.op == "rdma.write");
  CHECK(write.agent.starts_with("rdma "));  // named by what it moves: "rdma SRC -> DST"
  CHECK(write.at == test::source_line(kRingFile, "dma.start();"));
  CHECK(read.step < write.step);
  // Out-of-order completion: the same sender's next DMA (into the other
  // slot; DMAs are named "rdma SRC -> DST") completed its receive phase
  // before the racing (earlier) DMA did.
  const std::string sender = write.agent.substr(0, write.agent.find('.') + 1);  // "rdma devK."
  std::ptrdiff_t later = -1;
  for (std::size_t i = 0; i < first.schedule->steps.size() && later < 0; ++i) {
    const ScheduleStep& st = first.schedule->steps[i];
    if (st.agent.starts_with(sender) && st.agent != write.agent &&
        st.op.starts_with("rdma.recv"))
      later = static_cast<std::ptrdiff_t>(i);
  }
  auto earlier = step_of(*first.schedule, write.agent, "rdma.recv");
  REQUIRE(later >= 0);
  CHECK(later < earlier);
  CHECK(earlier == static_cast<std::ptrdiff_t>(write.step) - 1);
  require_replays(first);
}

TEST_CASE("fixed ring: one receive semaphore per slot, no race", "[tpu]") {
  // dfs alone cannot exhaust the default ring: its executions are the linear
  // extensions of the ring's partial order (see ring_executions below).
  RunConfig limited = budget(100000);
  limited.strategy = "dfs";
  auto r = run(kRing, {{"fixed", "true"}}, limited);
  CHECK(r.verdict == Verdict::ok);
  CHECK(r.stats.executions == 100000);
  CHECK_FALSE(r.exhaustive);
  auto names = strategy_names();
  if (std::find(names.begin(), names.end(), "dpor") != names.end()) {
    RunConfig c;
    c.strategy = "dpor";
    auto full = run(kRing, {{"fixed", "true"}}, c);
    CHECK(full.verdict == Verdict::ok);
    CHECK(full.exhaustive);
  } else {
    WARN("no dpor strategy registered: the fixed ring is checked within a dfs budget only");
  }
}

// Hidden (about a minute): run with the filter "[tpu-slow]".
TEST_CASE("dfs executions of the ring are the linear extensions of its partial order",
          "[.][tpu-slow]") {
  // Eager DMAs make the buggy ring deterministic: 1,993,536 orders (poset.hpp).
  auto eager = run(kRing, {{"dma_order", "eager"}}, dfs());
  CHECK(eager.verdict == Verdict::ok);
  CHECK(eager.stopped_by == "restriction");  // every eager order, but not every order
  CHECK(eager.stats.executions == test::ring_executions(3, 2, true));
  // One step (no reuse): the async phases are explored too, 667,296 orders.
  auto one = run(kRing, {{"steps", "1"}, {"fixed", "true"}}, dfs());
  CHECK(one.verdict == Verdict::ok);
  CHECK(one.exhaustive);
  CHECK(one.stats.executions == test::ring_executions(3, 1, false));
  // The fixed ring at its default size would need this many dfs executions.
  CHECK(test::ring_executions(3, 2, false) == 3171203376696ull);
}

TEST_CASE("dma_order=eager hides the ring bug and says exploration was restricted", "[tpu]") {
  auto r = run(kRing, {{"dma_order", "eager"}}, budget(100000));
  CHECK(r.verdict == Verdict::ok);
  CHECK(has_note(r, "exploration restricted by dma_order=eager"));
  // The restricted space was covered, but the verdict must not say "exhaustive"
  // or "verified": the race it hides is real (issue 50, item 8).
  CHECK_FALSE(r.exhaustive);
  CHECK(r.stopped_by == "restriction");
  REQUIRE(r.restrictions.size() == 1);
  CHECK(r.restrictions[0].find("dma_order=eager") != std::string::npos);
  const Kernel& k = find_kernel(kRing);
  const Params p = k.resolve({{"dma_order", "eager"}});
  const std::string text = format_run(k, p, RunConfig{}, r, "", "heddle");
  CHECK(text.find("summary: no bug found;") != std::string::npos);
  CHECK(text.find("not exhaustive: the model restricted its exploration (exploration restricted "
                  "by dma_order=eager") != std::string::npos);
  CHECK(text.find("verified") == std::string::npos);
  const nlohmann::json j = summary_json(k, p, RunConfig{}, r);
  CHECK(j["verdict"] == "no_bug_found");
  CHECK(j["exhaustive"] == false);
  CHECK(j["stopped_by"] == "restriction");
  CHECK(j["restricted"] == nlohmann::json(r.restrictions));
  auto any = run(kRing, {}, budget(1));
  CHECK_FALSE(has_note(any, "exploration restricted"));
  CHECK(any.restrictions.empty());
  // A split run says the same.
  RunConfig split = budget(100000);
  split.jobs = 2;
  auto jobs = run(kRing, {{"dma_order", "eager"}}, split);
  CHECK_FALSE(jobs.exhaustive);
  CHECK(jobs.stopped_by == "restriction");
}

TEST_CASE("dma_order=on_wait finds the ring bug (newest DMA first)", "[tpu]") {
  auto r = run(kRing, {{"dma_order", "on_wait"}});
  REQUIRE(r.verdict == Verdict::race);
  CHECK(has_note(r, "exploration restricted by dma_order=on_wait"));
  CHECK(r.bug->accesses[1].op == "rdma.write");
  require_replays(r);
}

TEST_CASE("unwaited DMAs and non-zero semaphores at exit are all reported, with lines",
          "[tpu]") {
  const char* file = "test/tpu/models.cpp";
  for (const char* order : {"any", "on_wait", "eager"}) {
    INFO("dma_order=" << order);
    auto r = run("test/tpu_leaky", {{"dma_order", order}});
    REQUIRE(r.verdict == Verdict::async_error);
    const auto& d = r.bug->details;
    auto count = [&](const std::string& text) {
      return std::count_if(d.begin(), d.end(), [&](const std::string& line) {
        return line.find(text) != std::string::npos;
      });
    };
    const std::string remote = test::source_line(file, "// remote copy start");
    const std::string local = test::source_line(file, "// local copy start");
    CHECK(count("rdma dev0.in -> dev1.out started at " + remote) == 1);
    CHECK(count("rdma dev1.in -> dev0.out started at " + remote) == 1);
    CHECK(count(".wait_recv() on dev1.recv_sem") == 1);
    CHECK(count(".wait_recv() on dev0.recv_sem") == 1);
    CHECK(count("dma dev0.in -> dev0.tmp started at " + local) == 1);
    CHECK(count("semaphore dev1.flag holds 1") == 1);
    if (std::string(order) == "on_wait") {
      // Nothing waited the local copy or the receive sides, so they never ran.
      CHECK(count("never ran") == 1);
      CHECK(count("its data never arrived") == 2);
      CHECK(count("holds 4") == 0);
    } else {
      CHECK(count("semaphore dev0.recv_sem holds 4") == 1);
      CHECK(count("semaphore dev1.recv_sem holds 4") == 1);
      CHECK(count("semaphore dev0.local_sem holds 4") == 1);
    }
    CHECK(count("send_sem") == 0);  // the send sides were waited
    require_replays(r);
  }
  auto clean = run("test/tpu_leaky",
                   {{"wait_recv", "true"}, {"local_wait", "true"}, {"extra_signal", "false"}});
  CHECK(clean.verdict == Verdict::ok);
  CHECK(clean.exhaustive);
}

TEST_CASE("one wait whose byte count covers two DMAs waits both", "[tpu]") {
  // Two one-element DMAs signal one semaphore; a two-element descriptor's
  // wait takes both their bytes, so both are waited (the exit check used to
  // mark only one and report the other as never waited).
  auto both = test::outcomes("test/tpu_one_wait_two_dmas", {{"covering", "true"}}, RunConfig{});
  CHECK(both.verdicts == std::set<std::string>{"ok"});
  CHECK(both.result.exhaustive);
  // A one-element wait leaves one DMA unwaited: reported, in every order.
  auto one = test::outcomes("test/tpu_one_wait_two_dmas", {{"covering", "false"}}, RunConfig{});
  CHECK(one.verdicts == std::set<std::string>{"async_error"});
}

TEST_CASE("waits of several units see every count dfs sees", "[tpu]") {
  // The counts read after a multi-unit wait depend on which DMAs landed
  // first: dpor and optimal, which prune reversals whose moved wait would
  // find too few units, must see each count dfs sees.
  for (const char* order : {"any", "on_wait"}) {
    INFO("dma_order " << order);
    const std::map<std::string, std::string> params = {{"dma_order", order}};
    auto dfs = test::outcomes("test/tpu_amounts", params, test::with_strategy("dfs"));
    CHECK(dfs.verdicts == std::set<std::string>{"ok"});
    // on_wait runs each DMA when a wait needs it: one order of landings.
    CHECK(dfs.final_states.size() > (order == std::string("any") ? 2u : 0u));
    for (const char* s : {"dpor", "optimal"}) {
      INFO(s);
      auto got = test::outcomes("test/tpu_amounts", params, test::with_strategy(s));
      CHECK(got.final_states == dfs.final_states);
      CHECK(got.verdicts == dfs.verdicts);
    }
  }
}

TEST_CASE("remote semaphore signals order the data they publish", "[tpu]") {
  auto ok = run("test/tpu_signal", {{"wait", "true"}});
  CHECK(ok.verdict == Verdict::ok);
  CHECK(ok.exhaustive);
  auto racy = run("test/tpu_signal", {{"wait", "false"}});
  REQUIRE(racy.verdict == Verdict::race);
  CHECK(racy.bug->title == "data race on dev1.data[0]");
  require_replays(racy);
}

TEST_CASE("simple collectives: exhaustive at 2 devices, outputs checked", "[tpu]") {
  struct Case {
    const char* kernel;
    std::uint64_t executions;  // linear extensions of the kernel's partial order
    std::vector<std::string> outputs;
  };
  const std::vector<Case> cases{
      {"pallas_tpu/right_permute", test::right_permute_executions(2),
       {"dev0.out=20", "dev1.out=10"}},
      {"pallas_tpu/all_reduce", test::right_permute_executions(2),  // same order at n = 2
       {"dev0.out=30", "dev1.out=30"}},
      {"pallas_tpu/all_gather", test::all_gather_executions(2),
       {"dev0.out[0]=10", "dev0.out[1]=20", "dev1.out[0]=10", "dev1.out[1]=20"}},
  };
  for (const auto& c : cases) {
    INFO(c.kernel);
    auto o = test::outcomes(c.kernel, {{"devices", "2"}}, dfs());
    CHECK(o.result.exhaustive);
    CHECK(o.verdicts == std::set<std::string>{"ok"});
    CHECK(o.result.stats.executions == c.executions);
    REQUIRE(o.final_states.size() == 1);  // one final state in every execution
    std::string want;
    for (const auto& line : c.outputs) want += line + "\n";
    CHECK(*o.final_states.begin() == want);
  }
  CHECK(test::right_permute_executions(2) == 920);  // the counter itself, by hand elsewhere
}

TEST_CASE("simple collectives at 3 and 4 devices: no bug within a budget", "[tpu]") {
  for (const char* k : {"pallas_tpu/right_permute", "pallas_tpu/all_gather",
                        "pallas_tpu/all_reduce"})
    for (const char* n : {"3", "4"}) {
      INFO(k << " devices=" << n);
      auto r = run(k, {{"devices", n}}, budget(3000));
      CHECK(r.verdict == Verdict::ok);
      for (const char* order : {"eager", "on_wait"}) {
        auto e = run(k, {{"devices", n}, {"dma_order", order}}, budget(3000));
        CHECK(e.verdict == Verdict::ok);
      }
    }
  auto hs = run("pallas_tpu/right_permute", {{"handshake", "true"}});
  CHECK(hs.verdict == Verdict::ok);
  CHECK(hs.exhaustive);
}

TEST_CASE("double-buffered copy verifies; prefetching into the buffer being read races",
          "[tpu]") {
  auto ok = run("pallas_tpu/double_buffered_copy", {}, dfs());
  CHECK(ok.verdict == Verdict::ok);
  CHECK(ok.exhaustive);
  CHECK(ok.stats.executions == test::double_buffer_executions(3));
  auto bad = run("pallas_tpu/double_buffered_copy", {{"same_buffer", "true"}});
  REQUIRE(bad.verdict == Verdict::race);
  CHECK(bad.bug->title.find("dev0.buf[") != std::string::npos);
  require_replays(bad);
  // Eager DMAs land at start, but as the DMAs: the prefetch's writes into
  // the buffer block 0's copy also writes are unordered with them (the core
  // never waited block 0 before starting block 1), as in every order.
  auto eager = run("pallas_tpu/double_buffered_copy",
                   {{"same_buffer", "true"}, {"dma_order", "eager"}});
  REQUIRE(eager.verdict == Verdict::race);
  CHECK(eager.bug->title.find("dev0.buf[") != std::string::npos);
  require_replays(eager);
}

TEST_CASE("reading a DMA's destination before its wait races in every dma_order", "[tpu]") {
  // start; read dst; wait: eager means the copy's effect happens at start,
  // not that the core's later reads are ordered after its writes (JAX's
  // eager interpret mode reports this race too).
  for (const char* order : {"any", "on_wait", "eager"}) {
    INFO("dma_order=" << order);
    auto r = run("test/tpu_read_before_wait", {{"dma_order", order}});
    REQUIRE(r.verdict == Verdict::race);
    CHECK(r.bug->title.find("dev0.dst[0]") != std::string::npos);
    require_replays(r);
    auto fixed = run("test/tpu_read_before_wait", {{"dma_order", order}, {"wait_first", "true"}});
    CHECK(fixed.verdict == Verdict::ok);
  }
}

TEST_CASE("cores of one device: per-core VMEM, shared HBM, core_index signals", "[tpu]") {
  auto o = test::outcomes("test/tpu_cores", {{"sync", "true"}}, RunConfig{});
  CHECK(o.result.exhaustive);
  CHECK(o.verdicts == std::set<std::string>{"ok"});
  CHECK(o.final_states == std::set<std::string>{"core1 sees out[0]=10\n"});
  auto racy = run("test/tpu_cores", {{"sync", "false"}});
  REQUIRE(racy.verdict == Verdict::race);
  CHECK(racy.bug->title == "data race on dev0.out[0]");
  std::set<std::string> agents{racy.bug->accesses[0].agent, racy.bug->accesses[1].agent};
  CHECK(agents == std::set<std::string>{"dev0.core0", "dev0.core1"});
  require_replays(racy);
}

TEST_CASE("heddle run with dma_order=eager prints the restriction note", "[tpu]") {
  auto eager = test::cli(std::string("run ") + kRing +
                         " --param dma_order=eager --max-executions 2000");
  CHECK(eager.code == 0);
  CHECK(eager.out.find("note: exploration restricted by dma_order=eager") != std::string::npos);
  CHECK(eager.out.find("race") == std::string::npos);
}

TEST_CASE("an untyped DMA between mismatched places is a model error at the copy", "[tpu]") {
  auto r = run("test/tpu_bad_copy", {{"what", "elem"}});
  REQUIRE(r.verdict == Verdict::model_error);
  CHECK_THAT(r.bug->title, Catch::Contains("element types differ"));
  r = run("test/tpu_bad_copy", {{"what", "past_end"}});
  REQUIRE(r.verdict == Verdict::model_error);
  CHECK_THAT(r.bug->title, Catch::Contains("elements [0, 4) are outside dev0.dst (2 elements)"));
}
