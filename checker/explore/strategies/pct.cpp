// pct: Probabilistic Concurrency Testing (Burckhardt, Kothari, Musuvathi,
// Nagarakatte, ASPLOS 2010, Algorithm 1). With n agents, k steps and bug
// depth d: random distinct initial priorities (all above d-1), d-1 change
// points chosen uniformly in [1, k]; at the i-th change point the agent
// about to run drops to priority i (below every initial priority, so later
// drops rank above earlier ones; as in the reference notes,
// shared/reference/dpor-benchmarks.md); always run the highest-priority
// enabled agent. Each execution then
// finds a given depth-d bug with probability >= 1/(n k^(d-1)) (§3, Thm 1).
//
// k is not known in advance; like shuttle and Coyote we estimate it as the
// longest execution seen so far, so the first execution has no change
// points. Agents created during an execution (spawned threads, issued async
// agents: async agents are agents like threads here) get a uniformly random
// rank among the agents that still have an initial priority.
#include <algorithm>
#include <memory>

#include "checker/engine/execution_record.hpp"
#include "checker/explore/run.hpp"
#include "checker/explore/strategies/seeded.hpp"

namespace heddle {
namespace {

class Pct final : public Strategy {
 public:
  explicit Pct(const RunConfig& c) : seeded_(c), depth_(std::max<std::uint32_t>(1, c.pct_depth)) {}

  std::string name() const override { return "pct"; }

  bool begin_execution() override {
    if (!seeded_.next_execution()) return false;
    ranked_.clear();
    lowered_.clear();
    known_ = 0;
    change_points_.clear();
    // d-1 distinct change points in [1, k] (fewer when k < d-1).
    std::uint32_t want = std::min<std::uint32_t>(depth_ - 1, length_estimate_);
    while (change_points_.size() < want) {
      auto p = static_cast<std::uint32_t>(1 + seeded_.below(length_estimate_));
      if (std::find(change_points_.begin(), change_points_.end(), p) == change_points_.end())
        change_points_.push_back(p);
    }
    std::sort(change_points_.begin(), change_points_.end());
    return true;
  }

  AgentId pick(const Choice& c) override {
    rank_new_agents(c.execution);
    auto cp = std::find(change_points_.begin(), change_points_.end(), c.step);
    if (cp != change_points_.end()) {
      // The i-th change point (1-based): the agent about to run drops to priority i.
      AgentId top = highest(c.enabled);
      auto r = std::find(ranked_.begin(), ranked_.end(), top);
      if (r != ranked_.end())
        ranked_.erase(r);
      else
        lowered_.erase(std::find(lowered_.begin(), lowered_.end(), top));
      lowered_.push_back(top);  // later change points rank above earlier ones
    }
    return highest(c.enabled);
  }

  std::uint32_t choose(std::uint32_t n, const ExecutionRecord&) override {
    return static_cast<std::uint32_t>(seeded_.below(n));
  }

  void end_execution(const ExecutionRecord& ex) override {
    length_estimate_ =
        std::max(length_estimate_, static_cast<std::uint32_t>(ex.trace().size()));
  }

  bool exhaustive() const override { return false; }
  std::optional<std::uint64_t> seed() const override { return seeded_.seed(); }
  std::vector<std::string> notes() const override { return seeded_.notes("pct"); }

 private:
  void rank_new_agents(const ExecutionRecord& ex) {
    for (; known_ < ex.agents().size(); ++known_) {
      auto at = static_cast<std::ptrdiff_t>(seeded_.below(ranked_.size() + 1));
      ranked_.insert(ranked_.begin() + at, ex.agents()[known_]->id);
    }
  }

  AgentId highest(std::span<const AgentId> enabled) const {
    auto on = [&](AgentId a) { return std::find(enabled.begin(), enabled.end(), a) != enabled.end(); };
    for (AgentId a : ranked_)
      if (on(a)) return a;
    for (auto it = lowered_.rbegin(); it != lowered_.rend(); ++it)
      if (on(*it)) return *it;
    return enabled.front();  // unreachable: every enabled agent is ranked
  }

  Seeded seeded_;
  std::uint32_t depth_;
  std::uint32_t length_estimate_ = 0;        // k: the longest execution so far
  std::vector<std::uint32_t> change_points_; // sorted steps
  // Invariant: every agent seen so far is in exactly one of the two lists.
  std::vector<AgentId> ranked_;   // agents with an initial priority, highest first
  std::vector<AgentId> lowered_;  // agents dropped at change points, in drop order
  std::size_t known_ = 0;         // agents of this execution already ranked
};

const bool pct_registered = [] {
  register_strategy("pct", [](const RunConfig& c) { return std::make_unique<Pct>(c); });
  return true;
}();

}  // namespace
}  // namespace heddle
