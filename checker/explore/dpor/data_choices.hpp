// Data choices (heddle::choose) under an optimal explorer.
//
// A choice is local to the agent that makes it: no other agent sees it
// until the agent acts on it through visible operations. So once every
// choice has a fixed value the model is deterministic, and DPOR explores
// its traces as usual. A choice is named by the agent that makes it
// (canonical id; setup is kSetup) and its rank among that agent's choices
// in the execution. The assignments are enumerated depth first over the
// choices in the order they were first met: when the explorer is done with
// one assignment, the last choice with a value left takes it and the
// choices met after it are forgotten (the new value may lead elsewhere),
// then a fresh explorer runs the new assignment. Every combination of
// values of the choices an execution can meet is run; the price is one
// whole exploration per combination.
#pragma once
#include <algorithm>
#include <cstdint>
#include <map>
#include <utility>
#include <vector>

namespace heddle::dpor {

/// The assignment of values to data choices being explored, and the next ones.
class DataChoices {
 public:
  static constexpr std::uint32_t kSetup = 0xffffffffu;  // choices made by setup code

  /// Starts an execution: ranks count from zero again.
  void begin_execution() { ranks_.clear(); }
  /// The value of the next choice in [0, n) made by `agent` (canonical).
  std::uint32_t value(std::uint32_t agent, std::uint32_t n) {
    const Key key{agent, ranks_[agent]++};
    auto [it, fresh] = index_.try_emplace(key, static_cast<std::uint32_t>(choices_.size()));
    if (fresh) choices_.push_back({key, 0, n});
    Choice& c = choices_[it->second];
    c.range = std::max(c.range, n);
    // A choice whose range shrank in this execution: its last value again.
    return std::min(c.value, n - 1);
  }
  /// Moves to the next assignment; false when every one has been run.
  bool advance() {
    for (std::size_t i = choices_.size(); i-- > 0;) {
      if (choices_[i].value + 1 >= choices_[i].range) continue;
      ++choices_[i].value;
      for (std::size_t j = i + 1; j < choices_.size(); ++j) index_.erase(choices_[j].key);
      choices_.resize(i + 1);
      ++assignments_;
      return true;
    }
    return false;
  }
  /// Assignments run so far, counting the current one.
  std::uint64_t assignments() const noexcept { return assignments_; }
  /// True once some execution made a choice.
  bool any() const noexcept { return !choices_.empty() || assignments_ > 1; }

 private:
  using Key = std::pair<std::uint32_t, std::uint32_t>;  // agent, rank
  struct Choice {
    Key key;
    std::uint32_t value = 0;
    std::uint32_t range = 1;  // the largest n it was asked with
  };
  std::vector<Choice> choices_;         // in the order first met
  std::map<Key, std::uint32_t> index_;  // key -> position in choices_
  std::map<std::uint32_t, std::uint32_t> ranks_;  // per agent: choices made in this execution
  std::uint64_t assignments_ = 1;
};

}  // namespace heddle::dpor
