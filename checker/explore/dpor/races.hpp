// The race analysis every DPOR strategy shares: a finished execution as
// a self-contained record (its events, then the operations still pending at
// its end), its happens-before clocks, and its reversible races.
//
// The race rules are those of optimal DPOR (JACM 2017, Sec. 3 races)
// applied to our event model: a failed CAS is a read, blocking operations
// (mutex and semaphore takes, barrier and await waits) race only where
// they could have run, operations still pending at the end (a deadlock, a
// bug stop) race like a last event, and races must be immediate except for
// an operation that may block. POP (pop.hpp) keeps one record per stack
// frame; optimal DPOR (optimal.hpp) keeps one, refilled in place.
#pragma once
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "checker/explore/dpor/event.hpp"
#include "checker/explore/dpor/object_index.hpp"

namespace heddle::dpor {

/// A reversible race: the events at positions i < j of one finished trace.
struct Race {
  std::uint32_t i = 0;
  std::uint32_t j = 0;
};

/// One finished execution: its events as they ran, then the operations
/// still pending at its end, with the happens-before clocks of all of them.
struct FinishedTrace {
  std::vector<EventInfo> events;         // [0, real) as they ran, then the pending ones
  std::vector<Footprint> declared;       // [declared_from, real): footprints before refinement
  std::size_t declared_from = 0;         // (a prefix replayed from another trace has none)
  std::vector<std::int32_t> created_by;  // a first event's creating position, else -1
  std::vector<AgentId> enabled;          // enabled sets of [0, real), flattened
  // Position k's set: [enabled_at[k], enabled_at[k + 1]) (less kAllEnabled);
  // kAllEnabled set: none listed, every agent pending at k was enabled.
  std::vector<std::uint32_t> enabled_at;
  static constexpr std::uint32_t kAllEnabled = 0x80000000u;
  /// The offset into `enabled` that enabled_at[k] names.
  std::uint32_t enabled_from(std::size_t k) const noexcept { return enabled_at[k] & ~kAllEnabled; }
  std::size_t real = 0;                  // events that ran
  std::vector<std::uint32_t> clocks;     // clocks[k * stride + a]: a's events hb-before-or-at k
  std::size_t stride = 0;
  std::vector<std::int32_t> prev_pos;    // the same agent's previous position, or -1

  /// Empties the record, keeping its storage.
  void clear();
  /// The footprint position j (declared_from <= j < real) was picked with.
  const Footprint& declared_at(std::size_t j) const {
    if (j < declared_from)
      throw std::logic_error("[heddle bug] pop: a replayed position's declaration was asked for");
    return declared[j - declared_from];
  }
  /// True when the event at position i happens before (or is) position k.
  bool happens_before(std::size_t i, std::size_t k) const {
    const EventInfo& e = events[i];
    return clocks[k * stride + index(e.agent)] > e.agent_event;
  }
  /// True when `a` was enabled before position `k` ran (k < real).
  bool was_enabled(std::size_t k, AgentId a) const;
  /// Bytes held (sizes, not capacities; for the memory statistics).
  std::size_t bytes() const;
  /// The positions of the events race r's schedule runs before j (CAV'24,
  /// Sec. 4): those after i that j needs. `past` is scratch storage.
  void schedule_events(const Race& r, std::vector<std::uint32_t>& past,
                       std::vector<std::size_t>& out) const;
};

/// Computes clocks and reversible races of finished traces. Holds only
/// scratch storage, reused between traces.
class RaceFinder {
 public:
  /// Fills `t.clocks` and `t.prev_pos` (program order, creation, conflicts).
  /// Positions below `same` ran as in `parent` (when given): their clocks
  /// are copied from it. Rows are `width` wide (0: as many as t's agents
  /// need; more lets a parent's rows be copied more often).
  void compute_clocks(FinishedTrace& t, const FinishedTrace* parent = nullptr,
                      std::size_t same = 0, std::size_t width = 0);
  /// compute_clocks, then find_races(t, from, to, pending, out) in the same
  /// pass: each position's earlier events on its objects are looked up once.
  /// `parent` may be `&t` (a record refilled in place from position `same`
  /// on, whose earlier rows still hold, when `width` has not changed).
  void analyse(FinishedTrace& t, const FinishedTrace* parent, std::size_t same, std::size_t width,
               std::size_t from, std::size_t to, bool pending, std::vector<Race>& out);
  /// Forgets the trace indexed last (its agents' canonical ids may name
  /// other agents in the next exploration).
  void forget() { indexed_.clear(); }
  /// Appends to `out` the reversible races (i, j) with j in [from, to) or,
  /// when `pending`, j a pending operation. compute_clocks(t) ran just before.
  void find_races(const FinishedTrace& t, std::size_t from, std::size_t to, bool pending,
                  std::vector<Race>& out);

 private:
  /// Indexes t's positions by object, keeping the entries of the prefix
  /// the trace indexed last shares with t.
  void index_objects(const FinishedTrace& t);
  /// Fills row k of t.clocks from the events it depends on (cand_ holds
  /// the candidates of compute_clocks' rule).
  void fill_row(FinishedTrace& t, std::size_t k);
  /// Fills cand_ with the positions below `limit` that touch an object of `fp`,
  /// ascending; with `stop_at_cover`, none before an object's last covering write.
  void candidates(const FinishedTrace& t, const Footprint& fp, std::size_t limit,
                  bool stop_at_cover);
  /// Appends the reversible races of position j (cand_ filled here).
  void races_of(const FinishedTrace& t, std::size_t j, std::vector<Race>& out);
  /// The same, with cand_ already holding j's candidates (races_of's rule).
  void race_candidates(const FinishedTrace& t, std::size_t j, std::vector<Race>& out);
  /// True when conf_[c] happens before a later event of conf_ (one that
  /// conflicts with the j race_candidates looks at).
  bool reaches_through(const FinishedTrace& t, std::size_t c) const;
  /// True when j (a conditional operation) could run right before i.
  bool reversible(const FinishedTrace& t, std::size_t i, std::size_t j) const;

  ObjectIndex objects_;  // positions per object of the trace analysed
  // That trace's agents, position by position: a trace that ran the same
  // agents in the same order ran the same events (deterministic models).
  std::vector<AgentId> indexed_;
  std::vector<std::uint32_t> cand_;
  std::vector<std::uint32_t> conf_;  // race_candidates: the candidates that conflict with j
  // fill_row: per agent, the row (row_serial_) in which its last conflicting
  // candidate was joined.
  std::vector<std::uint32_t> joined_;
  std::uint32_t row_serial_ = 0;
  std::vector<std::int32_t> last_;  // compute_clocks: each agent's last position so far
};

}  // namespace heddle::dpor
