// Execution::renew makes a used execution a new one: what runs on it after
// renew() comes out as it does on a freshly constructed execution.
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <string>
#include <vector>

#include "checker/engine/fiber.hpp"
#include "checker/explore/run.hpp"
#include "checker/heddle.hpp"
#include "test/support/harness.hpp"

using namespace heddle;

namespace {
// Setup receives a copy's release: the host's clock (which spawned threads
// inherit) then holds the copy's entry, which a renewed execution must drop.
const auto host_clock = kernel("test/renew_host_clock", "setup acquires what an async copy released")
    .body([](const Params&) {
      auto& flag = make<Atomic<int>>("flag", 0);
      const AgentId copy =
          issue("copy", {phase("signal", {touches(flag, true)},
                               [&flag] { flag.store(1, Order::release); })});
      Execution::current().complete_now(copy);
      (void)flag.load(Order::acquire);
      spawn("T", [&flag] { (void)flag.load(Order::relaxed); });
    });

// Everything an execution's outcome shows: ending, trace, bug, data
// choices, final state, notes, agents and objects with their states.
std::string outcome(const ExecutionRecord& ex, Ending ending) {
  std::string out = fmt::format("ending {} step {} failed {} assumption {}\n",
                                static_cast<int>(ending), ex.step(), ex.failed(),
                                ex.assumption_failed());
  for (const Event& e : ex.trace())
    out += fmt::format("  {} {} #{} fp{} by{} n{}\n", index(e.agent),
                       ex.describe(e.op, e.object, e.has_object), index(e.object),
                       e.footprint.size(), e.created_by, e.agent_event);
  if (ex.bug()) {
    out += fmt::format("bug {} at {}: {}\n", static_cast<int>(ex.bug()->kind), ex.bug()->step,
                       ex.bug()->title);
    for (const auto& d : ex.bug()->details) out += "  " + d + "\n";
  }
  for (unsigned v = 0; v <= static_cast<unsigned>(kLastVerdict); ++v)
    out += ex.met(static_cast<Verdict>(v)) ? "1" : "0";
  out += "\n";
  for (const DataChoice& c : ex.choices())
    out += fmt::format("choice {} {} {}\n", c.step, c.value, c.range);
  out += "final " + ex.final_state() + "\n";
  for (const auto& n : ex.notes()) out += "note " + n + "\n";
  for (const auto& a : ex.agents()) {
    out += fmt::format("agent {} {} finished {} events {} clock", index(a->id), a->name,
                       a->finished, a->events);
    for (std::uint32_t j = 0; j < ex.agents().size() + 2; ++j) out += fmt::format(" {}", a->clock[AgentId{j}]);
    out += "\n";
  }
  for (std::uint32_t k = 0; k < ex.object_count(); ++k)
    out += fmt::format("object {} by {}\n", ex.object_name(ObjectId{k}),
                       ex.object_creator(ObjectId{k}));
  for (const auto& [name, words] : ex.object_states()) out += name + ": " + words + "\n";
  return out;
}

// One execution of `k` under a random strategy seeded `seed`, on `ex`.
std::string run_once(const Kernel& k, const Params& params, std::uint64_t seed, Execution& ex) {
  RunConfig c;
  c.strategy = "random";
  c.seed = seed;
  auto strategy = make_strategy(c);
  REQUIRE(strategy->begin_execution());
  const Ending ending = run_execution(Model(k, params, ExecutionLimits{}), *strategy, ex);
  return outcome(ex, ending);
}
}  // namespace

TEST_CASE("a renewed execution runs as a new one would", "[engine]") {
  FaultHandlers handlers;
  StackPool pool(256 * 1024);
  // Every kernel that ends on its own within the step limit, in every preset.
  const std::vector<std::string> skip = {"test/plain_loop", "test/spin_forever"};
  int runs = 0;
  for (const auto& [name, k] : kernels()) {
    if (name.rfind("hostile/", 0) == 0 ||
        std::find(skip.begin(), skip.end(), name) != skip.end())
      continue;
    std::vector<Params> all{k.resolve({})};
    for (const Preset& p : k.presets) all.push_back(k.resolve(p.params));
    for (const Params& params : all) {
      for (std::uint64_t seed : {1u, 2u, 3u}) {
        INFO(name << " seed " << seed);
        std::string fresh;
        std::uint64_t fresh_serial = 0;
        {
          Execution ex(ExecutionLimits{}, pool);
          fresh_serial = ex.serial();
          fresh = run_once(k, params, seed, ex);
        }
        // Another kernel and another schedule first, then the same one again.
        Execution ex(ExecutionLimits{}, pool);
        run_once(find_kernel("test/renew_host_clock"), Params{}, seed, ex);
        ex.renew();
        run_once(k, params, seed + 100, ex);
        const std::uint64_t before = ex.serial();
        ex.renew();
        CHECK(ex.serial() != before);
        CHECK(ex.serial() != fresh_serial);
        CHECK(outcome(ex, Ending::complete) == outcome(Execution(ExecutionLimits{}, pool), Ending::complete));
        CHECK(run_once(k, params, seed, ex) == fresh);
        ++runs;
      }
    }
  }
  CHECK(runs > 100);
}
