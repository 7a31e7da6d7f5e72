// Agents: kernel threads (fibers) and async agents (in-flight copies).
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "checker/engine/clock.hpp"
#include "checker/engine/op.hpp"
#include "checker/engine/sync.hpp"

namespace heddle {

class Execution;
class Fiber;  // checker/engine/fiber.hpp: only the controller runs one

/// One phase of an async agent: runs in the controller when scheduled.
struct Phase {
  const char* name = "";
  ObjectId object{};                // main object, for schedules and reports
  bool has_object = false;
  Footprint footprint;
  std::function<bool()> enabled;    // empty: enabled once the previous phase ran
  std::function<void()> effect;     // accesses memory and releases as this agent
};

/// State common to every agent. Invariant: commit <= clock pointwise.
struct Agent {
  enum class Kind { thread, async };

  Agent(Kind k, AgentId id_, std::string name_) : kind(k), id(id_), name(std::move(name_)) {}
  virtual ~Agent() = default;

  /// True when the agent has a pending operation whose condition holds.
  virtual bool enabled() const = 0;
  /// The pending operation (valid while the agent is not finished).
  virtual const PendingOp& pending() const = 0;

  Kind kind;
  AgentId id;
  std::string name;
  VectorClock clock;    // happens-before clock
  CommitClocks commit;  // per proxy: what it may see (set by that proxy's fences)
  bool finished = false;
  std::int32_t created_by = -1;  // index of the event that created it (-1: setup)
  std::uint32_t events = 0;      // visible operations run so far
};

/// A kernel thread: user code in a fiber, stopping before each visible op.
/// Executions recycle ThreadAgents (and their idle fibers) for later
/// executions instead of freeing them; reset() makes one as new.
struct ThreadAgent final : Agent {
  ThreadAgent(AgentId id_, std::string name_, std::function<void()> body_);
  ~ThreadAgent() override;  // (agent.cpp, where a Fiber is complete)
  bool enabled() const override { return !finished && has_pending && op.enabled(); }
  const PendingOp& pending() const override { return op; }
  /// Makes a recycled agent a fresh, unstarted thread `name_` running `body_`;
  /// the caller sets its clocks, creator, execution and fiber.
  void reset(AgentId id_, std::string_view name_, std::function<void()>&& body_);
  /// reset() keeping the agent's name.
  void reset(AgentId id_, std::function<void()>&& body_);

  std::function<void()> body;   // the model's thread body
  Execution* execution = nullptr;  // the execution it runs in
  std::unique_ptr<Fiber> fiber;
  PendingOp op;
  bool has_pending = false;
  bool started = false;
};

/// What an issuer must call to wait for a copy (race hints), given whether
/// the copy's racing access writes and the issuer's own clock entry at its
/// racing access: an access at time t came before an issue made at time T
/// iff t <= T, so the model can say what the wait had to cover then.
using WaitHint = std::function<std::string(bool copy_writes, std::uint32_t issuer_time)>;

/// An async agent: a fixed list of phases run in order by the controller.
struct AsyncAgent final : Agent {
  AsyncAgent(AgentId id_, std::string name_, AgentId issuer_, std::vector<Phase> phases_,
             std::source_location loc_);
  bool enabled() const override;
  const PendingOp& pending() const override { return op; }
  /// Refreshes `op` from the next phase (called after each phase runs).
  void load_next();

  AgentId issuer;
  /// What the issuer must call to wait for this copy, in the model's words
  /// ("tma_store_wait<0>()"); set by the model after issuing (race hints use
  /// it). Empty: no words. See WaitHint.
  WaitHint wait_hint;
  std::vector<Phase> phases;
  std::size_t next = 0;  // index of the next phase to run
  std::source_location loc;  // issue site
  PendingOp op;
};

}  // namespace heddle

namespace heddle {
/// The host: runs the model's setup; its writes are initial contents.
struct HostAgent final : Agent {
  HostAgent() : Agent(Kind::thread, AgentId{0xffffffffu}, "host") {}
  /// As constructed: setup changes only the host's clocks (it records no events).
  void reset() {
    clock = VectorClock();
    commit = CommitClocks();
  }
  bool enabled() const override { return false; }
  const PendingOp& pending() const override { return op; }
  PendingOp op;
};
}  // namespace heddle
