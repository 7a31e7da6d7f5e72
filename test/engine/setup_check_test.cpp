// The setup check on renewed executions: a renewed execution keeps the
// names of the one before (SetupNames) and its thread agents, and accepts
// a setup that repeats them without comparing them again. These cases
// change a setup between executions in each way that shortcut must notice.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "checker/engine/fiber.hpp"
#include "checker/engine/strategy.hpp"
#include "checker/heddle.hpp"

using namespace heddle;

namespace {
struct Setup {
  std::vector<std::string> objects;
  std::vector<std::string> threads;
};

// Runs `s` as the setup of model `model` on `ex`; true when the check
// accepted it (no bug).
bool accepted(Execution& ex, std::uint64_t model, const Setup& s) {
  ex.run_setup(
      [&s] {
        for (const auto& o : s.objects) make<Mutex>(o);
        for (const auto& t : s.threads) spawn(t, [] {});
      },
      model);
  return !ex.bug();
}

std::vector<std::string> agent_names(const ExecutionRecord& ex) {
  std::vector<std::string> names;
  for (const auto& a : ex.agents()) names.push_back(a->name);
  return names;
}

// Answers every data choice with `value` (setup's heddle::choose).
class FixedChoice final : public Strategy {
 public:
  std::uint32_t value = 0;
  std::string name() const override { return "fixed"; }
  bool begin_execution() override { return true; }
  AgentId pick(const Choice& c) override { return c.enabled.front(); }
  std::uint32_t choose(std::uint32_t, const ExecutionRecord&) override { return value; }
  void end_execution(const ExecutionRecord&) override {}
  bool exhaustive() const override { return false; }
};

// A model number no other case uses (the check's record is per OS thread).
std::uint64_t fresh_model() {
  static std::uint64_t next = 0x5e7c0000;
  return ++next;
}
}  // namespace

TEST_CASE("a renewed execution's setup is checked against the one before", "[engine]") {
  FaultHandlers handlers;
  StackPool pool(256 * 1024);
  const Setup base{{"a", "b"}, {"T0", "T1"}};
  // Each way to differ from `base`, after two executions that repeat it.
  const std::vector<Setup> changed{
      {{"a", "c"}, {"T0", "T1"}},       // an object's name
      {{"a", "b"}, {"T0", "U1"}},       // a thread's name
      {{"a", "b", "c"}, {"T0", "T1"}},  // one more object
      {{"a"}, {"T0", "T1"}},            // one object less
      {{"a", "b"}, {"T0", "T1", "T2"}}, // one more thread
      {{"a", "b"}, {"T0"}},             // one thread less
      {{"b", "a"}, {"T0", "T1"}},       // the same names, in another order
  };
  for (const Setup& c : changed) {
    const std::uint64_t model = fresh_model();
    Execution ex(ExecutionLimits{}, pool);
    CHECK(accepted(ex, model, base));
    ex.renew();
    CHECK(accepted(ex, model, base));  // the shortcut
    ex.renew();
    CHECK_FALSE(accepted(ex, model, c));
    REQUIRE(ex.bug());
    CHECK(ex.bug()->title == "kernel setup is not deterministic");
    // The same again: it repeats the execution before, which was refused.
    ex.renew();
    CHECK_FALSE(accepted(ex, model, c));
    ex.renew();
    CHECK(accepted(ex, model, base));
  }
}

TEST_CASE("the setup shortcut holds only for the same model", "[engine]") {
  FaultHandlers handlers;
  StackPool pool(256 * 1024);
  const std::uint64_t one = fresh_model(), two = fresh_model();
  Execution ex(ExecutionLimits{}, pool);
  CHECK(accepted(ex, one, {{"a"}, {"T"}}));
  ex.renew();
  CHECK(accepted(ex, two, {{"b"}, {"T"}}));  // another model may build anything
  ex.renew();
  CHECK(accepted(ex, two, {{"b"}, {"T"}}));
  ex.renew();
  CHECK_FALSE(accepted(ex, one, {{"b"}, {"T"}}));  // one built "a"
}

TEST_CASE("the setup shortcut holds only for the same data choices", "[engine]") {
  FaultHandlers handlers;
  StackPool pool(256 * 1024);
  const std::uint64_t model = fresh_model();
  FixedChoice strategy;
  // Choice 0 builds "a", choice 1 builds "b"; once `flip` is set, both build "b".
  bool flip = false;
  Execution ex(ExecutionLimits{}, pool);
  auto run = [&](std::uint32_t value) {
    strategy.value = value;
    ex.set_strategy(&strategy);
    ex.run_setup([&] { make<Mutex>(choose(2) == 1 || flip ? "b" : "a"); }, model);
    const bool ok = !ex.bug();
    ex.renew();
    return ok;
  };
  CHECK(run(0));
  CHECK(run(1));
  CHECK(run(1));
  flip = true;
  CHECK_FALSE(run(0));  // repeats the names before, but choice 0 built "a"
}

TEST_CASE("the setup shortcut sees what other executions recorded meanwhile", "[engine]") {
  FaultHandlers handlers;
  StackPool pool(256 * 1024);
  const std::uint64_t model = fresh_model();
  Execution ex(ExecutionLimits{}, pool);
  CHECK(accepted(ex, model, {{"a"}, {"T"}}));
  {
    // Enough other models to empty this OS thread's record of setups, then
    // this model with another object: recorded as new.
    Execution other(ExecutionLimits{}, pool);
    for (int k = 0; k < 4100; ++k) {
      CHECK(accepted(other, fresh_model(), {{"x"}, {}}));
      other.renew();
    }
    CHECK(accepted(other, model, {{"b"}, {"T"}}));
  }
  // Repeats ex's last setup, but the record now says "b" for this model.
  ex.renew();
  CHECK_FALSE(accepted(ex, model, {{"a"}, {"T"}}));
}

TEST_CASE("a renewed execution keeps agent names unique", "[engine]") {
  FaultHandlers handlers;
  StackPool pool(256 * 1024);
  Execution ex(ExecutionLimits{}, pool);
  CHECK(accepted(ex, fresh_model(), {{}, {"a", "b"}}));
  ex.renew();
  // The first name differs from the one before: the second, though it
  // repeats its place's name, is taken now.
  CHECK(accepted(ex, fresh_model(), {{}, {"b", "b"}}));
  CHECK(agent_names(ex) == std::vector<std::string>{"b", "b#2"});
  ex.renew();
  const std::uint64_t model = fresh_model();
  CHECK(accepted(ex, model, {{}, {"w", "w", "w#2"}}));
  CHECK(agent_names(ex) == std::vector<std::string>{"w", "w#2", "w#2#2"});
  ex.renew();
  CHECK(accepted(ex, model, {{}, {"w", "w", "w#2"}}));
  CHECK(agent_names(ex) == std::vector<std::string>{"w", "w#2", "w#2#2"});
}
