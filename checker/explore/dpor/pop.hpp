// POP: optimal DPOR in polynomial space (after Abdulla, Atig, Das, Jonsson,
// Sagonas, "Parsimonious Optimal Dynamic Partial Order Reduction", CAV 2024,
// arXiv 2405.11128).
//
// Optimal DPOR (JACM 2017, Alg. 2) stores every race reversal it has not
// explored yet in wakeup trees, which grow with the number of executions.
// POP explores each reversal eagerly instead (CAV'24, Sec. 5): when an
// execution ends, its races are taken one by one (by their later event,
// earliest first), and the schedule of each is explored, with everything it
// leads to, before the next race is looked at. The state is a stack of
// finished executions, each with the races it has still to reverse; no
// unexplored schedule is stored.
//
// Parsimony (CAV'24, Sec. 4; rules as in Nidhugg's POP trace builder): a
// race is reversed in one execution only. Its later event must lie at or
// after the end of the execution's schedule, its earlier event must not
// belong to a schedule, and every schedule head (a schedule's reversed
// event) between the two must happen before the later one; otherwise the
// race was already there in the execution the schedule came from. The
// schedule of race (e, e') is pre(E, e), then only the events that e'
// needs (its causal past outside e and what follows e), then e'.
//
// Redundancy (CAV'24, Sec. 6): instead of sleep sets of single events, a
// position remembers the schedules explored from it. A parsimonious branch
// covers exactly the traces that have its schedule as a happens-before
// prefix (a sleep set of its first event would claim more, and lose
// traces: lastzero(3) then gives 9 of its 12). Each such schedule is
// carried down the execution as a "sleep sequence" (its unmatched events):
// it is dropped once an event outside it depends on what it still needs,
// and the execution is covered once it is matched completely. A new
// schedule that completes one is not explored; a free choice never picks a
// step that completes one (if every enabled step does, the execution is
// given up there and counted in sleep_blocked, not as an execution; this
// stays 0 on every test of a whole run, and happens in split work items).
//
// Space: per stack frame, its trace with clocks (O(n · agents)), its races
// (O(n^2)) and, per position, the schedules started there and the sleep
// sequences carried (each O(n)); the frames are nested reversals. PopStats
// records the peak; bench/RESULTS.md and test/dpor/pop_memory_test.cpp
// show it growing with the execution length, not the executions.
//
// Our event model (blocking operations, async agents with a creator,
// failed CAS as a read, operations pending at the end) enters through the
// race rules of pop_trace.hpp, shared in substance with OptimalDpor; a
// moved blocking operation does not need the events after e (a lock moved
// before the other lock does not need its unlock); a schedule whose agent
// turns out blocked (an await moved before the write it needs) cannot run
// in any trace, and its execution is given up (Strategy's kAbandon,
// PopStats::infeasible), as GenMC counts its blocked executions apart.
//
// A pure component: the strategy hands it each pick and each finished
// trace, it answers which agent runs next. It never runs fibers.
#pragma once
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "checker/explore/dpor/canonical.hpp"
#include "checker/explore/dpor/event.hpp"
#include "checker/explore/dpor/pop_trace.hpp"
#include "checker/engine/strategy.hpp"

namespace heddle::dpor {

/// Counters of one POP exploration.
struct PopStats {
  std::uint64_t sleep_blocked = 0;   // executions an explored schedule already covered
  std::uint64_t infeasible = 0;      // schedules whose next agent turned out blocked (abandoned)
  std::uint64_t pruned = 0;          // reversible races left to another execution (parsimony)
  std::uint64_t races = 0;           // reversible races analysed
  std::uint64_t redundant = 0;       // of which an explored schedule already covered
  std::uint64_t explored = 0;        // of which explored (executions beyond the first)
  std::size_t peak_frames = 0;       // finished executions on the stack, at most
  std::size_t peak_state_bytes = 0;  // bytes of the stack (frames, sleep sets), at most
};

/// The exploration state of POP over one model.
class PopDpor {
 public:
  /// Explores only the traces that start with `prefix` (canonical agent ids)
  /// and that no event of `sleep` could start from there (a work item of a
  /// split exploration, checker/explore/split/work_split.hpp), whose canonical ids come
  /// from `agents` and `objects`; free choices prefer `wakers` while one of
  /// `sleep` still sleeps. Call before begin().
  void start_at(std::vector<AgentId> prefix, std::vector<EventInfo> sleep,
                std::vector<AgentId> wakers, const CanonicalAgents& agents,
                const CanonicalObjects& objects);
  /// Forgets the exploration, to start another one (start_at) on the
  /// storage this one grew: work items run one after another.
  void reset();
  /// Prepares the next execution; false when every trace has been explored.
  bool begin();
  /// The agent to run at the step described by `c`.
  AgentId next(const Choice& c) {
    if (depth_ < copied_) return replay(c);  // inline: most steps replay the frame below's
    return choose(c);
  }
  /// Records the finished execution and picks the next schedule to explore.
  void end(const ExecutionRecord& ex);
  const PopStats& stats() const noexcept { return stats_; }
  /// The canonical id of agent `a` of the running execution `ex`.
  AgentId canonical(const ExecutionRecord& ex, AgentId a) {
    agents_.sync(ex);
    return agents_.canon(a);
  }
  /// True once begin() has returned false.
  bool done() const noexcept { return done_; }
  /// Watches position `at` of start_at's prefix for a guarded work item
  /// whose sleep set is `asleep` (dpor::Guard). Call before begin().
  void watch(std::uint32_t at, std::vector<EventInfo> asleep);
  /// The watched positions a race has called for (sorted, each once).
  const std::vector<std::uint32_t>& calls() const noexcept { return calls_; }

 private:
  // The choices made at one position (a prefix) of the executions on the
  // stack: the sleep sequences carried there from earlier positions, and
  // the schedules of the branches started here, oldest first (a free step
  // is a schedule of one event; the running execution's is at `cur`).
  using SeqRef = std::shared_ptr<const Seq>;  // shared by the slots it is carried through
  // A slot's sleep sequences, shared with the slot before when the event
  // between them left them all as they were (null: none).
  using Sleep = std::shared_ptr<const std::vector<SeqRef>>;
  struct Slot {
    Sleep sleep;               // unmatched parts of explored schedules
    boost::container::small_vector<Seq, 1> started;  // schedules started here, oldest first
    std::uint32_t cur = 0;
  };
  // One finished execution. Positions below `own_from` are a prefix it
  // shares with the frame below it (that frame owns their slots).
  struct Frame {
    std::size_t own_from = 0;
    std::vector<Slot> own;    // own[k - own_from]
    FinishedTrace trace;
    std::vector<std::uint8_t> flags;  // per position: kSchedule, kHead
    std::vector<Race> races;  // still to reverse; the next one is at the back
    std::size_t bytes = 0;    // what it holds, slots included (the memory statistics)
  };
  static constexpr std::uint8_t kSchedule = 1;  // the event belongs to a schedule's v
  static constexpr std::uint8_t kHead = 2;      // ... and is its reversed (last) event

  /// The frame of the running (or just finished) execution.
  Frame& top() { return frames_[top_ - 1]; }
  /// The frame that owns the slot of position p of the top frame's execution.
  std::size_t owner(std::size_t p) const;
  /// Adds `bytes` to what frame `frame` holds.
  void account(std::size_t frame, std::size_t bytes);
  /// Bytes of one stored sequence.
  static std::size_t seq_bytes(const Seq& q);
  /// The slot of position p of the top frame's execution (most are the top frame's own).
  Slot& slot(std::size_t p) {
    Frame& t = top();
    if (p >= t.own_from && p - t.own_from < t.own.size()) return t.own[p - t.own_from];
    return slot_below(p);
  }
  /// slot(p), looked up through owner().
  Slot& slot_below(std::size_t p);
  /// The sleep sequences of `s` (inline: asked at every step).
  static std::span<const SeqRef> seqs(const Slot& s) {
    return s.sleep ? std::span<const SeqRef>(*s.sleep) : std::span<const SeqRef>();
  }
  /// Creates the slot of a fresh position p of the running execution.
  Slot& fresh_slot(std::size_t p, const std::vector<Event>& trace);
  /// True when one of start_at's sleeping events still sleeps in `s`.
  bool root_asleep(const Slot& s) const;
  /// next() at a position replayed from the frame below, whose records
  /// were copied from there (copy_replayed_picks): only the agent to find.
  AgentId replay(const Choice& c);
  /// next() at any other position: records the pick and chooses the agent.
  AgentId choose(const Choice& c);
  /// An enabled agent whose step completes no sleep sequence at p.
  AgentId free_choice(std::size_t p, const Choice& c, const Slot& s);
  /// Refines the branch recorded for position p to the footprint it ran with.
  void finalize(std::size_t p, const std::vector<Event>& trace);
  /// Forgets the running schedule, whose next agent turned out blocked,
  /// and marks the execution abandoned.
  void abandon_schedule();
  /// Stores the finished execution in the top frame with its races.
  void record_frame(const ExecutionRecord& ex);
  /// Marks the schedule events of the top frame (inherited below the branch).
  void mark_schedule(Frame& f);
  /// Drops the races that parsimony leaves to another execution.
  void keep_parsimonious(Frame& f);
  /// Calls for the guarded item watching race r's earlier event (in the
  /// prefix) when no event asleep there is a weak initial of its reversal.
  void note_prefix_race(const Frame& f, const Race& r);
  /// note_prefix_race for the races within start_at's prefix (root frame `f`).
  void watch_prefix(const Frame& f);
  /// Appends the operations still pending at the end (deadlock, limits).
  void collect_pending(const ExecutionRecord& ex, FinishedTrace& t);
  /// Fills the running execution's enabled sets for the prefix it replays
  /// from the frame below, which ran it (begin()).
  void copy_replayed_picks();
  /// Bytes of the running execution's plan and pick records.
  std::size_t running_bytes() const;
  /// The operation agent `a` has pending at `c`, agents and objects named
  /// by canonical id.
  EventInfo pending(const Choice& c, AgentId a) const;
  /// Position k of the running execution, agents and objects named by canonical id.
  EventInfo info_at(const std::vector<Event>& trace, std::size_t k) const;
  /// Pops races (and exhausted frames) until one gives a schedule to explore.
  bool advance();
  /// Builds the schedule of race r of `f` into plan_; false when redundant.
  bool schedule(Frame& f, const Race& r);
  /// Updates the peak statistics.
  void measure();

  std::vector<Frame> frames_;     // [0, top_) live; the rest keep their storage
  std::size_t top_ = 0;
  std::size_t state_bytes_ = 0;   // bytes the live frames hold
  // The running execution: replay plan_[0, branch_), then follow plan_ while
  // its agents are enabled (following_), then choose freely.
  std::vector<AgentId> plan_;
  std::size_t branch_ = 0;
  std::size_t prefix_ = 0;            // start_at's prefix: replayed, never reversed
  std::vector<SeqRef> root_sleep_;    // start_at's sleep, at position prefix_
  Sleep root_slot_sleep_;             // ... as its slot holds it
  struct Watch {
    std::uint32_t at;
    std::vector<EventInfo> asleep;
  };
  std::vector<Watch> watches_;        // watch()'s, by position
  std::vector<std::uint32_t> calls_;  // watched positions called for
  std::vector<Race> scratch_races_;   // watch_prefix's
  std::vector<AgentId> wakers_;       // start_at's wakers (canonical ids)
  bool following_ = false;
  std::size_t depth_ = 0;
  std::size_t followed_to_ = 0;        // positions [branch_, followed_to_) followed the plan
  std::size_t blocked_at_ = SIZE_MAX;  // position where every enabled agent slept
  bool started_ = false, done_ = false;
  bool abandoned_ = false;             // the running execution was given up
  // What the running execution's picks saw, for its frame.
  std::vector<Footprint> declared_;  // positions [declared_from_, depth_)
  std::size_t declared_from_ = 0;
  std::vector<std::uint8_t> conditional_;
  std::vector<AgentId> enabled_;
  std::vector<std::uint32_t> enabled_at_;
  // Positions [0, copied_) replay the frame below: their enabled sets came
  // from there, and no race asks for their declarations or flags (declared_
  // starts after them, conditional_ holds zeros there).
  std::size_t copied_ = 0;
  std::size_t running_bytes_ = 0;  // their bytes and plan_'s when record_frame took them
  RaceFinder finder_;
  CanonicalAgents agents_;  // events and plans name agents by canonical id
  CanonicalObjects objects_;  // ... and footprints objects
  std::vector<const EventInfo*> v_;  // the schedule being checked
  EventInfo moved_;                  // its last event, as declared
  std::vector<std::size_t> heads_;   // schedule heads of the trace being analysed
  std::vector<std::uint32_t> past_;  // the moved event's predecessors' joined clock
  std::vector<std::size_t> at_;      // positions of the schedule's events
  PopStats stats_;
};

}  // namespace heddle::dpor
