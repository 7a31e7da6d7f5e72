// What an execution has done so far, as data: its agents, trace, data
// choices, objects and bug. Strategies, DPOR and reports read an execution
// through this class only, so they compile without the fibers; the
// controller (checker/engine/execution.hpp, which runs the fibers)
// derives from it and fills it in.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "checker/engine/agent.hpp"
#include "checker/engine/bug.hpp"
#include "checker/engine/describe.hpp"
#include "checker/engine/execution_types.hpp"
#include "checker/engine/setup_names.hpp"

namespace heddle {

class Strategy;

class ExecutionRecord {
 public:
  ExecutionRecord(const ExecutionRecord&) = delete;
  ExecutionRecord& operator=(const ExecutionRecord&) = delete;

  /// The events run so far, in order.
  const std::vector<Event>& trace() const noexcept { return trace_; }
  /// Every agent created so far, by AgentId index.
  const std::vector<std::unique_ptr<Agent>>& agents() const noexcept { return agents_; }
  /// The data choices made so far (heddle::choose).
  const std::vector<DataChoice>& choices() const noexcept { return choices_; }
  /// The agent running now (nullptr during setup and exit checks).
  Agent* self() noexcept { return now_.running; }
  const Agent* self() const noexcept { return now_.running; }
  /// The 1-based step running now (0 before the first step).
  std::uint32_t step() const noexcept { return now_.step; }
  /// At a pick: true when no pending operation has a blocking condition,
  /// so every unfinished agent is enabled (the last scan asked none).
  bool blocks_none() const noexcept { return !now_.scan_ask; }
  /// At a pick: true when agent `a` has an operation pending without a
  /// blocking condition, so it is enabled (false: look in the enabled set).
  bool surely_enabled(AgentId a) const noexcept {
    return index(a) < ready_.size() && ready_[index(a)] == kReady;
  }
  /// The first bug met, if any.
  const std::optional<BugReport>& bug() const noexcept { return bug_; }
  bool failed() const noexcept { return bug_.has_value(); }
  /// Whether a bug of kind `v` was met: the first (bug()) or one after it,
  /// when the execution ran on past its first bug (see Now::met).
  bool met(Verdict v) const noexcept { return (now_.met >> static_cast<unsigned>(v)) & 1u; }
  bool assumption_failed() const noexcept { return now_.assumption_failed; }
  /// A number no other execution of this process has: objects keep it to
  /// tell a reference kept from an earlier execution.
  std::uint64_t serial() const noexcept { return serial_; }

  const std::string& object_name(ObjectId id) const { return setup_names_[index(id)]; }
  /// Number of objects registered so far.
  std::size_t object_count() const noexcept { return setup_names_.size(); }
  /// The agent that registered object `id` (kNoCreator: setup or exit checks).
  std::uint32_t object_creator(ObjectId id) const { return object_creators_[index(id)]; }
  static constexpr std::uint32_t kNoCreator = 0xffffffffu;
  /// Every described object's state now: (object name, words), in
  /// registration order; objects with nothing to say are left out.
  std::vector<std::pair<std::string, std::string>> object_states() const;
  /// Text naming an operation: "name(object)" or "name".
  std::string describe(const char* op, ObjectId object, bool has_object) const;
  /// The final state as "key=value" lines in key order.
  std::string final_state() const;
  /// Lines the run report prints once (Execution::note).
  const std::vector<std::string>& notes() const noexcept { return notes_; }
  /// Why some executions are left unexplored (Execution::restrict_exploration).
  const std::vector<std::string>& restrictions() const noexcept { return restrictions_; }

 protected:
  ExecutionRecord() = default;
  ~ExecutionRecord() = default;

  // Per agent, what the run loop's scan needs without touching the agent:
  // kIdle (finished, or no operation pending), kReady (an operation without
  // a blocking condition is pending), kAsk (ask Agent::enabled()).
  enum : std::uint8_t { kIdle, kReady, kAsk };
  // Where a run stands: every scalar a renewed execution starts afresh
  // (renew() assigns a new one; a member added here needs no reset).
  struct Now {  // (widest members first: no padding between them)
    Strategy* strategy = nullptr;
    Agent* running = nullptr;
    ThreadAgent* fast = nullptr;  // the thread of the fast step under way (run())
    const char* host_work = nullptr;  // setup or exit-check work running now, for on_model_exit
    std::size_t started = 0;  // agents_ below this index have been started
    // What the last scan saw (scan_enabled's shortcut): ready_'s size then
    // (SIZE_MAX: none yet this run), whether any agent was kAsk, and the
    // agent picked since.
    std::size_t scan_size = SIZE_MAX;
    std::size_t last_ran = 0;
    bool scan_ask = false;
    std::uint32_t step = 0;
    // A pick made by pick_here for run() to carry out (has_picked), or
    // the exception the strategy threw there (pick_error_).
    AgentId picked{};
    bool has_picked = false;
    // Bit v: a bug of kind v was met, first or later. Only the first is
    // reported, but which of two bugs met by independent steps comes first
    // differs between the orders of one Mazurkiewicz trace, and DPOR runs
    // one order per trace (JACM 2017, Sec. 2): the kinds met are the trace's.
    std::uint8_t met = 0;
    bool assumption_failed = false;
  };
  Now now_;
  std::vector<std::unique_ptr<Agent>> agents_;
  std::vector<std::uint8_t> ready_;
  SetupNames setup_names_;  // the objects' names, kept when renewed
  std::vector<std::uint32_t> object_creators_;  // per object: creating agent's index, or kNoCreator
  std::vector<std::pair<ObjectId, const Describable*>> described_;  // see Execution::add_described
  std::vector<std::pair<std::string, std::string>> observed_;
  std::vector<std::string> notes_;
  std::vector<std::string> restrictions_;
  std::vector<Event> trace_;
  std::vector<DataChoice> choices_;
  std::optional<BugReport> bug_;
  std::uint64_t serial_ = 0;
};

}  // namespace heddle
