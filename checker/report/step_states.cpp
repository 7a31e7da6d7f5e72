#include "checker/report/step_states.hpp"

#include <fmt/format.h>

#include "checker/engine/execution_record.hpp"
#include "checker/explore/forwarding.hpp"

namespace heddle {

/// Forwards every call to the wrapped strategy; at each pick it closes the
/// step that just ran: its line, then what changed since the step before.
class StepStatesStrategy final : public ForwardingStrategy {
 public:
  StepStatesStrategy(std::unique_ptr<Strategy> inner, StepStates& out)
      : ForwardingStrategy(std::move(inner)), out_(out) {}

  bool begin_execution() override {
    text_.clear();
    started_ = false;
    closed_ = 0;
    return ForwardingStrategy::begin_execution();
  }
  AgentId pick(const Choice& c) override {
    close_steps(c.execution);
    return ForwardingStrategy::pick(c);
  }
  void end_execution(const ExecutionRecord& ex) override {
    close_steps(ex);
    out_.text_ = text_;
    ForwardingStrategy::end_execution(ex);
  }

 private:
  void close_steps(const ExecutionRecord& ex) {
    StepStates::State now = visible_state(ex);
    if (!started_) {
      started_ = true;
      text_ += "state before step 1:\n";
      for (const auto& [k, v] : now) text_ += fmt::format("          {}: {}\n", k, v);
      if (now.empty()) text_ += "          (no described objects)\n";
      last_ = std::move(now);
      return;
    }
    const auto& trace = ex.trace();
    for (; closed_ < trace.size(); ++closed_) {
      const Event& e = trace[closed_];
      text_ += fmt::format("  {:>4}  {}  {}  {}\n", closed_ + 1, ex.agents()[index(e.agent)]->name,
                           ex.describe(e.op, e.object, e.has_object), where(e.loc));
    }
    // Steps are closed one at a time (pick follows every step), so the
    // changes belong to the last line written.
    std::string changes = state_changes(last_, now, "          ");
    text_ += changes.empty() ? "          (no visible change)\n" : changes;
    last_ = std::move(now);
  }

  StepStates& out_;
  std::string text_;
  bool started_ = false;
  std::size_t closed_ = 0;
  StepStates::State last_;
};

StrategyDecorator StepStates::decorator() {
  return [this](std::unique_ptr<Strategy> inner) -> std::unique_ptr<Strategy> {
    return std::make_unique<StepStatesStrategy>(std::move(inner), *this);
  };
}

// A model may describe a copy's own progress under the copy's name (a bulk
// op "reading"): that is the copy's line, not an object the user declared
// (issue 50.7), so its words join the copy's.
StepStates::State visible_state(const ExecutionRecord& ex) {
  StepStates::State s;
  for (auto& [name, words] : ex.object_states()) s[name] = std::move(words);
  for (const auto& a : ex.agents()) {
    if (a->kind != Agent::Kind::async) continue;
    const auto& copy = static_cast<const AsyncAgent&>(*a);
    std::string own;
    if (auto it = s.find(copy.name); it != s.end()) {
      own = "; " + it->second;
      s.erase(it);
    }
    s["copy " + copy.name] =
        copy.finished ? std::string("done")
                      : fmt::format("in flight, next: {} ({} of {}){}", copy.phases[copy.next].name,
                                    copy.next + 1, copy.phases.size(), own);
  }
  return s;
}

namespace {
// "count 0 -> 1": the words both states start with are said once. Only
// whole comma-separated fields are left out, or words before a last single
// word, so that a field keeps its name: "phase 0, idle -> phase 1, 0 of 2
// arrived", not "-> 1, 0 of 2 arrived" (issue 50.7).
std::string change_words(const std::string& was, const std::string& now) {
  std::size_t word = 0, field = 0;
  for (std::size_t i = 0; i < was.size() && i < now.size() && was[i] == now[i]; ++i) {
    if (was[i] == ' ') word = i + 1;
    if (was[i] == ' ' && i > 0 && was[i - 1] == ',') field = i + 1;
  }
  const bool one_word =
      was.find(' ', word) == std::string::npos && now.find(' ', word) == std::string::npos;
  return fmt::format("{} -> {}", was, now.substr(one_word ? word : field));
}
}  // namespace

std::string state_changes(const StepStates::State& before, const StepStates::State& after,
                          const std::string& indent) {
  std::string out;
  for (const auto& [k, v] : after) {
    auto it = before.find(k);
    if (it == before.end()) out += fmt::format("{}{}: {} (new)\n", indent, k, v);
    else if (it->second != v)
      out += fmt::format("{}{}: {}\n", indent, k, change_words(it->second, v));
  }
  for (const auto& [k, v] : before)
    if (!after.count(k)) out += fmt::format("{}{}: gone (was {})\n", indent, k, v);
  return out;
}

}  // namespace heddle
