// A thread that the strategy picks again runs on without a switch
// (Execution::pick_here): the strategy sees what it sees from run(), the
// exploration is the same, and what the strategy throws reaches the caller.
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <array>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

#include "checker/engine/fiber.hpp"
#include "checker/explore/forwarding.hpp"
#include "checker/heddle.hpp"
#include "test/support/harness.hpp"

using namespace heddle;

namespace {
bool g_caught = false;  // set when the model's handler saw an exception

// One thread that swallows every std::exception around its visible operations.
const auto catch_all = kernel("test/pick_catch_all", "one thread that swallows exceptions around its ops")
    .body([](const Params&) {
      auto& x = make<Atomic<int>>("x", 0);
      spawn("T", [&x] {
        try {
          for (int i = 0; i < 6; ++i) x.fetch_add(1);
        } catch (const std::exception&) {
          g_caught = true;  // swallowed: a strategy's exception here would be lost
        }
      });
    });

int* volatile g_null = nullptr;  // volatile: the compiler may not assume the crash

// Two threads of three RMWs; thread `who` misbehaves (`what`) after its
// RMW number `at`, in a step that a thread's fiber may hand it
// (Fiber::hand_to) when the strategy alternates the threads.
const auto handed_fault = kernel("test/handed_fault", "a thread misbehaves in a step handed to it")
    .choice("what", "null", {"null", "throw", "abort", "assert"}, "how it misbehaves")
    .param("who", 1, "the thread that misbehaves", 0, 1)
    .param("at", 1, "after which of its RMWs", 0, 2)
    .body([](const Params& p) {
      auto& x = make<Atomic<int>>("x", 0);
      const std::string what = p.get("what");
      const long who = p.get_int("who"), at = p.get_int("at");
      for (int t = 0; t < 2; ++t)
        spawn("T" + std::to_string(t), [&x, t, what, who, at] {
          for (int i = 0; i < 3; ++i) {
            x.fetch_add(1);
            if (t != who || i != at) continue;
            if (what == "null") *g_null = 1;
            if (what == "throw") throw std::runtime_error("the thread gave up");
            if (what == "abort") std::abort();
            if (what == "assert") check(false, "the thread's check");
          }
        });
    });

/// Every pick a run made, as the strategy saw it, how many were made on a
/// thread's fiber (pick_here) rather than from run(), and how many of those
/// picked another thread, which that fiber then switched to (hand_off).
struct PickLog {
  std::vector<std::string> lines;
  std::uint64_t on_fiber = 0;
  std::uint64_t handed = 0;
  RunResult result;
};

// Picks an enabled agent other than the one that ran last, when there is
// one (most steps switch threads); the wrapped strategy only counts executions.
class Alternate final : public ForwardingStrategy {
 public:
  using ForwardingStrategy::ForwardingStrategy;
  AgentId pick(const Choice& c) override {
    const auto& trace = c.execution.trace();
    for (AgentId a : c.enabled)
      if (trace.empty() || a != trace.back().agent) return a;
    return c.enabled.front();
  }
};

class Recording final : public ForwardingStrategy {
 public:
  Recording(std::unique_ptr<Strategy> inner, PickLog& log)
      : ForwardingStrategy(std::move(inner)), log_(log) {}
  AgentId pick(const Choice& c) override {
    AgentId id = ForwardingStrategy::pick(c);
    log_.on_fiber += in_fiber() ? 1 : 0;
    const auto& trace = c.execution.trace();
    log_.handed += in_fiber() && !trace.empty() && trace.back().agent != id ? 1 : 0;
    std::string line = fmt::format("{} trace={} self={} [", c.step, trace.size(),
                                   c.execution.self() != nullptr);
    for (AgentId a : c.enabled) line += fmt::format(" {}", index(a));
    log_.lines.push_back(fmt::format("{} ] -> {}", line, index(id)));
    return id;
  }
  void end_execution(const ExecutionRecord& ex) override {
    log_.lines.push_back(fmt::format("end {} steps\n{}", ex.trace().size(), ex.final_state()));
    ForwardingStrategy::end_execution(ex);
  }

 private:
  PickLog& log_;
};

/// The picks of a whole run of `kernel` with fiber stacks of `stack_kib`.
/// Under "alternate", Alternate picks (wrapping `random`).
PickLog picks(const std::string& kernel, const std::map<std::string, std::string>& params,
              const std::string& strategy, std::size_t stack_kib) {
  PickLog log;
  const bool alt = strategy == "alternate";
  RunConfig c = test::with_strategy(alt ? "random" : strategy);
  c.stack_bytes = stack_kib * 1024;
  c.stop_at_first_bug = false;
  c.minimize = false;
  c.max_executions = alt ? 3 : c.max_executions;
  c.decorate = [&log, alt](std::unique_ptr<Strategy> s) -> std::unique_ptr<Strategy> {
    if (alt) s = std::make_unique<Alternate>(std::move(s));
    return std::make_unique<Recording>(std::move(s), log);
  };
  log.result = test::run(kernel, params, c);
  return log;
}

class ThrowsAt final : public ForwardingStrategy {
 public:
  ThrowsAt(std::unique_ptr<Strategy> inner, std::uint32_t step)
      : ForwardingStrategy(std::move(inner)), step_(step) {}
  AgentId pick(const Choice& c) override {
    if (c.step == step_) throw std::runtime_error("the strategy failed");
    return ForwardingStrategy::pick(c);
  }

 private:
  std::uint32_t step_;
};
}  // namespace

TEST_CASE("picks made on a thread's stack are the picks run() makes", "[engine]") {
  // Below Execution::kPickHeadroom of stack, every pick is made from run().
  constexpr std::size_t kSmallStackKib = 32;
  std::uint64_t on_fiber = 0;
  std::uint64_t handed = 0;  // picks of another thread, switched to from a fiber
  for (int mix = 0; mix <= 3; ++mix)
    for (int seed = 1; seed <= 40; ++seed)
      for (const char* strategy : {"dfs", "dpor", "alternate"}) {
        std::map<std::string, std::string> params{{"seed", std::to_string(seed)},
                                                  {"threads", std::to_string(2 + seed % 3)},
                                                  {"budget", std::to_string(3 + seed % 4)},
                                                  {"mix", std::to_string(mix)}};
        INFO(strategy << " seed " << seed << " mix " << mix);
        PickLog here = picks("test/random", params, strategy, 256);
        PickLog switched = picks("test/random", params, strategy, kSmallStackKib);
        CHECK(switched.on_fiber == 0);
        CHECK(here.lines == switched.lines);
        on_fiber += here.on_fiber;
        handed += here.handed;
      }
  CHECK(on_fiber > 0);
  CHECK(handed > 0);
  PickLog here = picks("classic/lastzero", {{"n", "4"}}, "dpor", 256);
  CHECK(here.on_fiber > 0);
  CHECK(here.lines == picks("classic/lastzero", {{"n", "4"}}, "dpor", kSmallStackKib).lines);
}

TEST_CASE("what the strategy throws on a thread's stack reaches the caller, not the model",
          "[engine]") {
  for (std::uint32_t step : {1u, 2u, 4u}) {
    INFO("throws at step " << step);
    g_caught = false;
    RunConfig c = test::with_strategy("dfs");
    c.decorate = [step](std::unique_ptr<Strategy> s) {
      return std::make_unique<ThrowsAt>(std::move(s), step);
    };
    CHECK_THROWS_WITH(test::run("test/pick_catch_all", {}, c), "the strategy failed");
    CHECK_FALSE(g_caught);
  }
}

TEST_CASE("a thread that misbehaves in a step handed to it is reported as in a step from run()",
          "[engine]") {
  std::uint64_t handed = 0;
  for (const char* what : {"null", "throw", "abort", "assert"})
    for (int case_no = 0; case_no < 6 * 3; ++case_no) {
      const int who = case_no / 9, at = case_no / 3 % 3;
      const char* strategy = std::array{"alternate", "dfs", "dpor"}[case_no % 3];
      INFO(what << " by T" << who << " after RMW " << at << " under " << strategy);
      const std::map<std::string, std::string> params{
          {"what", what}, {"who", std::to_string(who)}, {"at", std::to_string(at)}};
      PickLog here = picks("test/handed_fault", params, strategy, 256);
      PickLog switched = picks("test/handed_fault", params, strategy, 32);
      handed += here.handed;
      CHECK(here.lines == switched.lines);
      REQUIRE(here.result.bug.has_value());
      REQUIRE(switched.result.bug.has_value());
      CHECK(here.result.bug->kind == switched.result.bug->kind);
      CHECK(here.result.bug->title == switched.result.bug->title);
      CHECK(here.result.bug->details == switched.result.bug->details);
      CHECK(here.result.stats.executions == switched.result.stats.executions);
      CHECK(here.result.bug->title.find(fmt::format("T{}", who)) != std::string::npos);
    }
  CHECK(handed > 0);
}
