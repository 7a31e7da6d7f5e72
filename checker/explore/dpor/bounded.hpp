// DPOR within a preemption bound: bounded partial-order reduction (BPOR,
// Coons, Musuvathi, McKinley, "Bounded Partial-Order Reduction", OOPSLA
// 2013, Sec. 4), on persistent-set DPOR (Flanagan and Godefroid, POPL 2005,
// Fig. 4).
//
// Why BPOR and not the TruSt-based bounding of Marmanis, Kokologiannakis,
// Vafeiadis ("Reconciling Preemption Bounding with DPOR", TACAS 2023): the
// latter explores execution graphs (reads-from choices, backward revisits),
// while heddle's strategies pick agents over a sequence of steps, as the
// dfs, dpor and replay strategies do. BPOR is a small change to sequence
// DPOR: each backtrack point added for a race is added a second time at the
// last context switch before it (loom's Path::backtrack does the same), so
// every state reachable within the bound is reached, at the price of
// optimality (redundant executions). TACAS'23 notes the resulting bound is
// pessimistic for incomplete executions; that only costs executions here,
// never coverage.
//
// No sleep sets: an agent put to sleep at a step was explored there with the
// preemptions that order cost, and the equivalent execution its branch would
// cover may need more preemptions than the bound allows, so the sleep set
// prunes executions that are within the bound. The brute-force tests in
// test/bounded/ found such a case (classic/philosophers ring, n=3, bound 1:
// the deadlock after one preemption was missed), and pass without them.
//
// A pure component like OptimalDpor: the strategy hands it each pick and
// data choice and each finished trace; it never runs fibers.
#pragma once
#include <cstdint>
#include <vector>

#include "checker/explore/dpor/canonical.hpp"
#include "checker/explore/dpor/event.hpp"
#include "checker/engine/strategy.hpp"

namespace heddle::dpor {

/// Counters of one bounded exploration.
struct BoundedStats {
  std::uint64_t cut = 0;            // branches not explored because of the bound
  std::uint64_t races = 0;          // races analysed
};

/// The exploration state of BPOR with preemption bound `bound`. A preemption
/// is running a thread while the last thread that ran is still enabled and is
/// not that thread; async steps (a phase completing) never count.
class BoundedDpor {
 public:
  explicit BoundedDpor(std::uint32_t bound) : bound_(bound) {}
  /// Prepares the next execution; false when the bounded space is explored.
  bool begin();
  /// The agent to run at the step described by `c`.
  AgentId next(const Choice& c);
  /// A value in [0, n) for heddle::choose: every value is a DFS branch.
  std::uint32_t choose(std::uint32_t n);
  /// Analyses the finished execution's races and moves to the next branch.
  void end(const ExecutionRecord& ex);
  const BoundedStats& stats() const noexcept { return stats_; }
  /// True once begin() has returned false.
  bool done() const noexcept { return done_; }

 private:
  // One decision of the current execution: a pick (a step of the trace) or
  // a data choice made during a step. Invariant: decisions [0, replay_) are
  // re-taken as recorded; decision replay_ takes its new `chosen`/`value`.
  struct Node {
    bool data = false;
    std::uint32_t value = 0, range = 1;  // data: the value taken, of [0, range)
    AgentId chosen{};                    // pick: the agent run, backtrack[explored]
    std::vector<AgentId> enabled;        // pick: enabled agents, id order
    std::vector<AgentId> backtrack;      // pick: agents to explore here, in order
    std::size_t explored = 0;            // pick: backtrack[0, explored) are done
    std::vector<AgentId> cut;            // pick: agents the bound kept from backtrack
    std::uint32_t preemptions = 0;       // pick: preemptions before this step
    AgentId prev{};                      // pick: the last thread that ran (if has_prev)
    bool has_prev = false;               // pick: a thread ran before this step
    bool switch_costs = false;           // pick: prev is still enabled
  };

  /// True when running `a` at pick `n` is a preemption.
  bool preempts(const Node& n, AgentId a) const;
  bool is_thread(AgentId a) const { return thread_[index(a)] != 0; }
  /// Adds `a` at the context switch points before step i (BPOR).
  void add_at_switch(const std::vector<Event>& trace, std::size_t i, AgentId a);
  AgentId first_pick(const Node& n) const;
  void compute_clocks(const std::vector<Event>& trace, const std::vector<Event>& pending);
  bool happens_before(const Event& e, std::size_t k) const {
    return clocks_[k * stride_ + index(e.agent)] > e.agent_event;
  }
  void analyse(const std::vector<Event>& trace, const std::vector<Event>& pending);
  void add_backtrack(std::size_t step, AgentId a);
  void try_add(Node& n, AgentId a);
  bool backtrack();

  std::uint32_t bound_;
  std::vector<Node> path_;          // decisions of the current execution
  std::vector<std::size_t> steps_;  // steps_[s]: index in path_ of step s's pick
  std::size_t depth_ = 0;           // next decision of this execution
  std::size_t replay_ = 0;          // first decision that differs from the last run
  std::size_t first_new_step_ = 0;  // steps before it were analysed already
  bool done_ = false;
  std::vector<std::uint32_t> clocks_;  // clocks_[k * stride_ + a]: a's events hb-or-at k
  std::size_t stride_ = 0;
  std::vector<std::int32_t> prev_pos_;  // the same agent's previous event
  std::vector<char> thread_;            // thread_[a]: canonical agent a is a thread
  std::size_t kinds_known_ = 0;         // this execution's agents already in thread_
  CanonicalAgents agents_;              // decisions and clocks name agents by canonical id
  BoundedStats stats_;
};

}  // namespace heddle::dpor
