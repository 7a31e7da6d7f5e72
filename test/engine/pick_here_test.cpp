// A thread that the strategy picks again runs on without a switch
// (Execution::pick_here): the strategy sees what it sees from run(), the
// exploration is the same, and what the strategy throws reaches the caller.
#include <catch2/catch.hpp>
#include <fmt/format.h>

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

/// Every pick a run made, as the strategy saw it, and how many were made
/// on a thread's fiber (pick_here) rather than from run().
struct PickLog {
  std::vector<std::string> lines;
  std::uint64_t on_fiber = 0;
};

class Recording final : public ForwardingStrategy {
 public:
  Recording(std::unique_ptr<Strategy> inner, PickLog& log)
      : ForwardingStrategy(std::move(inner)), log_(log) {}
  AgentId pick(const Choice& c) override {
    AgentId id = ForwardingStrategy::pick(c);
    log_.on_fiber += in_fiber() ? 1 : 0;
    std::string line = fmt::format("{} trace={} self={} [", c.step, c.execution.trace().size(),
                                   c.execution.self() != nullptr);
    for (AgentId a : c.enabled) line += fmt::format(" {}", index(a));
    log_.lines.push_back(fmt::format("{} ] -> {}", line, index(id)));
    return id;
  }
  void end_execution(const Execution& ex) override {
    log_.lines.push_back(fmt::format("end {} steps\n{}", ex.trace().size(), ex.final_state()));
    ForwardingStrategy::end_execution(ex);
  }

 private:
  PickLog& log_;
};

/// The picks of a whole run of `kernel` with fiber stacks of `stack_kib`.
PickLog picks(const std::string& kernel, const std::map<std::string, std::string>& params,
              const std::string& strategy, std::size_t stack_kib) {
  PickLog log;
  RunConfig c = test::with_strategy(strategy);
  c.stack_bytes = stack_kib * 1024;
  c.stop_at_first_bug = false;
  c.minimize = false;
  c.decorate = [&log](std::unique_ptr<Strategy> s) {
    return std::make_unique<Recording>(std::move(s), log);
  };
  test::run(kernel, params, c);
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
  for (int mix = 0; mix <= 3; ++mix)
    for (int seed = 1; seed <= 40; ++seed)
      for (const char* strategy : {"dfs", "dpor"}) {
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
      }
  CHECK(on_fiber > 0);
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
