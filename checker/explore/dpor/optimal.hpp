// Optimal DPOR with wakeup trees and sleep sets (Abdulla, Aronis, Jonsson,
// Sagonas, "Source Sets: A Foundation for Optimal Dynamic Partial Order
// Reduction", JACM 64(4) 2017, Algorithm 2; POPL 2014 Algorithm 2).
//
// A pure component: the strategy hands it each pick (enabled set, pending
// operations) and each finished trace; it answers which agent runs next and
// keeps the exploration state (the current path, its sleep sets and the
// wakeup trees hanging off it). It never runs fibers.
#pragma once
#include <cstdint>
#include <vector>

#include "checker/explore/dpor/canonical.hpp"
#include "checker/explore/dpor/event.hpp"
#include "checker/explore/dpor/races.hpp"
#include "checker/explore/dpor/wakeup_tree.hpp"
#include "checker/engine/strategy.hpp"

namespace heddle::dpor {

/// Counters of one optimal-DPOR exploration.
struct OptimalStats {
  std::uint64_t sleep_blocked = 0;  // executions whose every enabled agent slept
  std::uint64_t infeasible = 0;     // wakeup branches dropped: their agent was blocked
  std::uint64_t races = 0;          // reversible races analysed
  std::uint64_t inserted = 0;       // of which added to a wakeup tree
  std::size_t peak_tree_nodes = 0;  // live wakeup-forest nodes, at most
};

/// The exploration state of optimal DPOR over one model.
class OptimalDpor {
 public:
  /// Prepares the next execution; false when every trace has been explored.
  bool begin();
  /// The agent to run at the step described by `c`.
  AgentId next(const Choice& c);
  /// Analyses the finished execution's races and moves to the next branch.
  void end(const ExecutionRecord& ex);
  const OptimalStats& stats() const noexcept { return stats_; }
  /// True once begin() has returned false.
  bool done() const noexcept { return done_; }

 private:
  // Invariant: path_[p] is the wakeup-forest node of the event run at
  // position p (0-based step); it is the first child of its parent, whose
  // other children are the branches still to explore from that prefix.
  // sleep_[p] and enabled_[p] describe the state before position p.
  // Events are named by their interned ids in tree_ (sleep sets are
  // copied at every step: ids keep that a few bytes per entry).
  struct Sleeper {
    std::uint32_t ran = 0;       // interned id of the event as it ran (refined)
    std::uint32_t declared = 0;  // ... and as it was declared
    // Kept asleep past a wakeup step that ran narrower than the tree had it
    // (a failed CAS): the tree counted on that step waking it.
    bool owed = false;
  };
  struct Position {
    std::int32_t node = WakeupForest::kNone;
    AgentId agent{};  // the agent of node's event (read without touching the tree)
    std::vector<Sleeper> sleep;        // the sleeping events
    std::vector<AgentId> enabled;
    std::uint32_t declared = 0;  // interned id of the operation before refinement
    std::uint32_t planned = 0;   // interned id the wakeup tree held (if from_tree)
    bool from_tree = false;      // the step followed a wakeup-tree node
    bool conditional = false;
  };
  // An operation still pending when the execution ended (a blocked lock in
  // a deadlock, or any agent cut off by a bug): it races like an event that
  // would run last.
  struct Pending {
    Event event;
    bool conditional = false;
  };

  std::int32_t parent_of(std::size_t p) const { return p == 0 ? 0 : path_[p - 1].node; }
  std::int32_t take_wakeup_child(std::size_t p, const Choice& c);
  /// Fills sleep(p) from sleep(p - 1) and the step at p - 1.
  void carry_sleep(std::size_t p);
  void finalize(std::size_t p, const std::vector<Event>& trace);
  /// Describes position k into `out` (its declared footprint if `declared`).
  void fill_info(EventInfo& out, const std::vector<Event>& trace, std::size_t k,
                 bool declared) const;
  const Event& at(const std::vector<Event>& trace, std::size_t k) const {
    return k < trace.size() ? trace[k] : pending_[k - trace.size()].event;
  }
  bool conditional_at(std::size_t n, std::size_t k) const {
    return k < n ? path_[k].conditional : pending_[k - n].conditional;
  }
  void collect_pending(const ExecutionRecord& ex);
  /// Refills record_ with the finished trace and the pending operations;
  /// returns how many positions it kept (before the branch point, they ran as before).
  std::size_t record(const std::vector<Event>& trace);
  /// The footprint position k was declared with (before refinement).
  const Footprint& declared_footprint(std::size_t k) const {
    return tree_.event_by_id(path_[k].declared).footprint;
  }
  /// Adds the reversal of race (i, j) of record_ to the wakeup tree.
  void reverse(const std::vector<Event>& trace, std::size_t i, std::size_t j);
  bool backtrack();

  WakeupForest tree_;             // events name agents by canonical id (agents_)
  CanonicalAgents agents_;
  std::vector<Position> path_;   // positions [0, len_) are live; the rest keep capacity
  std::size_t len_ = 0;
  std::size_t depth_ = 0;        // position of the next pick in this execution
  std::size_t branch_ = 0;       // first position that differs from the last execution
  std::size_t blocked_at_ = SIZE_MAX;  // position where every enabled agent slept
  bool started_ = false, done_ = false;
  // The finished trace as the race analysis (races.hpp) sees it, agents
  // by canonical id; refilled in place from the branch point on.
  FinishedTrace record_;
  RaceFinder finder_;
  std::vector<Race> races_;             // the finished trace's reversible races
  EventInfo moved_;                     // the reversed race's later event, as declared
  std::vector<const EventInfo*> v_;     // the sequence v of the race being reversed
  std::vector<Pending> pending_;        // positions n, n+1, ... of the analysis
  OptimalStats stats_;
};

}  // namespace heddle::dpor
