// One execution of a kernel model, the controller: it runs the agents'
// fibers under a strategy and fills in its ExecutionRecord (the agents,
// trace and bug that strategies, DPOR and reports read).
#pragma once
#include <algorithm>
#include <chrono>
#include <exception>
#include <functional>
#include <memory>
#include <new>
#include <optional>
#include <source_location>
#include <string>
#include <string_view>
#include <vector>

#include "checker/engine/agent.hpp"
#include "checker/engine/arena.hpp"
#include "checker/engine/bug.hpp"
#include "checker/engine/describe.hpp"
#include "checker/engine/execution_record.hpp"
#include "checker/engine/execution_types.hpp"
#include "checker/engine/fiber.hpp"
#include "checker/engine/setup_names.hpp"
#include "checker/engine/sync.hpp"

namespace heddle {

class Strategy;
class Execution;

namespace detail {
/// The execution being built or run on this OS thread (see Execution::current).
inline thread_local Execution* current_execution = nullptr;
}  // namespace detail

class Execution : public ExecutionRecord {
 public:
  Execution(ExecutionLimits limits, StackPool& pool);
  ~Execution();
  Execution(const Execution&) = delete;
  Execution& operator=(const Execution&) = delete;
  /// Ends this execution and makes it a new one, as constructed (same
  /// limits and pool), keeping its storage: a loop of executions builds none.
  void renew();

  /// The execution being built or run on this OS thread (none: a model error, exit 1).
  static Execution& current() {
    if (detail::current_execution == nullptr) no_current_execution();
    return *detail::current_execution;
  }
  /// True while some execution is current.
  static bool active() noexcept { return detail::current_execution != nullptr; }

  // ---- model-facing ----
  /// Agent names are unique: a taken name gets a "#k" suffix.
  /// Creates a thread; it starts (happens-after the creator) at the next step.
  AgentId spawn(std::string_view name, std::function<void()>&& body);
  /// Creates an async agent issued by the current agent (or the host in setup).
  AgentId issue(std::string_view name, std::vector<Phase> phases, std::source_location loc);
  /// Runs every remaining phase of async agent `id` now, inside the running
  /// step, as that agent (a copy whose effect happens at issue, as an eager
  /// DMA's does): its accesses and releases stay its own, so the issuer's
  /// later accesses are ordered after them only through a wait.
  void complete_now(AgentId id);
  /// Sets what the issuer of async agent `copy` must call to wait for it
  /// (AsyncAgent::wait_hint); [heddle bug] when `copy` is not an async agent.
  void set_wait_hint(AgentId copy, WaitHint hint);
  /// Registers a named object (sync object or region) and returns its id.
  ObjectId add_object(std::string_view name);
  /// Registers object `id`'s state words (replay --steps); `d` lives as long
  /// as the execution (objects made with make() do).
  void add_described(ObjectId id, const Describable* d) { described_.emplace_back(id, d); }
  /// Allocates a T owned by this execution (models keep references to it),
  /// in the execution's arena; it is destroyed when the execution ends.
  template <class T, class... A>
  T& make(A&&... args) {
    // Room first, so that a constructed object is always recorded for destruction.
    if (owned_.size() == owned_.capacity()) owned_.reserve(std::max<std::size_t>(16, 2 * owned_.size()));
    T* obj = ::new (arena_->bump(sizeof(T), alignof(T))) T(std::forward<A>(args)...);
    owned_.push_back(Owned{obj, [](void* p) noexcept { static_cast<T*>(p)->~T(); }});
    return *obj;
  }
  /// From a thread: publishes `op` and suspends until the controller runs it.
  /// From setup or an async phase, runs nothing and returns at once.
  void visible(PendingOp op);
  /// Fast path of visible(): the running thread's pending-op slot to fill in
  /// place (nullptr outside a thread); then call publish().
  PendingOp* pending_slot() noexcept {
    return now_.running != nullptr && now_.running->kind == Agent::Kind::thread
               ? &static_cast<ThreadAgent*>(now_.running)->op
               : nullptr;
  }
  /// Publishes the filled pending_slot() and suspends until it is scheduled.
  /// Inline: the switch stays in the caller's frame (see Fiber::suspend).
  void publish() {
    auto& t = static_cast<ThreadAgent&>(*now_.running);
    t.has_pending = true;
    ready_[index(t.id)] = t.op.enabled.conditional() ? kAsk : kReady;
    Fiber* next = pick_here(t);
    if (next == nullptr)
      Fiber::suspend();  // to run(), which carries out the pick
    else if (next != t.fiber.get())
      t.fiber->hand_to(*next);  // inline too: see Fiber::suspend
    // Resumed, or picked again: the caller now performs the operation.
  }
  /// Joins `s` into the current agent (acquire).
  void acquire(const SyncClock& s);
  /// Joins the current agent into `s` (release).
  void release(SyncClock& s);
  /// acquire(s), then release(s) (an acq_rel RMW), in one call.
  void acquire_release(SyncClock& s);
  /// A bi-directional proxy fence for every non-generic proxy: commit := clock.
  void proxy_fence();
  /// A proxy fence for proxy `p` only (fence.proxy.async, the tensormap acquire).
  void proxy_fence(Proxy p);
  /// A uni-directional release proxy fence for `p`: the agent's accesses so
  /// far become available to acquire proxy fences it synchronizes with.
  void proxy_release(Proxy p);
  /// A uni-directional acquire proxy fence for `p`: what was released to
  /// `p` and reached this agent becomes visible to its `p` accesses.
  void proxy_acquire(Proxy p);
  /// Records a bug; the controller ends the execution after this step.
  void fail(BugReport bug);
  /// Records a bug found by a model check (assertion, misuse).
  void fail(Verdict kind, std::string title, std::vector<std::string> details = {});
  /// Runs `fn` when every agent is done (models' kernel-exit checks);
  /// `loc` (where it was registered) names it in reports.
  void on_exit(std::function<void()> fn,
               std::source_location loc = std::source_location::current()) {
    exit_checks_.push_back(ExitCheck{std::move(fn), loc});
  }
  /// Adds a line the run report prints once (e.g. "exploration restricted by
  /// dma_order=eager"); repeated notes are printed once.
  void note(std::string text);
  /// Notes `text` and marks the run restricted: an option of the model leaves
  /// some executions unexplored, so no verdict may say "exhaustive".
  void restrict_exploration(std::string text);
  /// Records one entry of the final state (compared across executions).
  void observe(std::string key, std::string value);
  /// Replaces the footprint of the step running now, once the operation
  /// knows what it really did (a failed CAS only reads).
  void refine_footprint(Footprint fp);
  /// Replaces the running step's entries on `a.object` by `a` (appends it
  /// when there are none): an operation inside a step that knows only once
  /// it ran what it touched (the phase an arrival landed in). Outside a
  /// step of the running agent (setup, exit checks, a thread's prologue)
  /// there is no step to refine and nothing happens. `keep_updates`: the
  /// object's commutative updates stay listed beside `a` (an arrival whose
  /// step then writes every phase of its barrier).
  void refine_access(const Access& a, bool keep_updates = false);
  /// True when the running thread's step announced an entry covering `a`
  /// (its object and bytes, written if `a` writes, not as an update), so
  /// `a` may refine it; true outside a thread (nothing to announce there).
  bool step_announced(const Access& a) const;
  /// A data choice in [0, n), taken from the strategy.
  std::uint32_t choose(std::uint32_t n);
  /// An assume() failed: the execution is discarded once nothing can run.
  void fail_assumption() noexcept { now_.assumption_failed = true; }

  // ---- controller-facing ----
  /// Runs the execution to its end under `strategy`.
  Ending run(Strategy& strategy);
  /// Installs the strategy used for data choices outside run() (setup).
  void set_strategy(Strategy* s) noexcept { now_.strategy = s; }
  /// Runs the model's setup on a guarded fiber (watchdog, faults, exit());
  /// a fault, runaway or exception becomes the execution's bug, and so does
  /// a setup that builds other objects than an earlier one of `model` (a
  /// hash of its name and parameters) did. Returns false when setup failed.
  /// UsageError (a bad parameter) passes through.
  /// `where_words` says where setup runs, for errors heddle detects in it.
  bool run_setup(const std::function<void()>& setup, std::uint64_t model,
                 const std::string& where_words = "in the kernel's body, outside any thread");

 private:
  [[noreturn]] static void no_current_execution();
  /// Entry of every thread's fiber: runs the ThreadAgent `agent`'s body.
  static void thread_main(void* agent);
  /// Checks that `name` may name a new agent (non-empty, room left) and,
  /// when an agent has it, gives it a "#k" suffix, kept in `storage` and
  /// viewed by `name`. Returns the final name's hash (ModelError if refused).
  std::size_t claim_name(std::string_view& name, std::string& storage) const;
  /// Gives new agent `child` its creator's clocks (the host's in setup), its
  /// own first entry and its creating event; the creator's clock ticks.
  void adopt(Agent& child);
  /// True when an agent is named `name`, whose name_hash is `hash`.
  bool name_taken(std::string_view name, std::size_t hash) const;
  /// `name#k` with the smallest k >= 2 that no agent has yet.
  std::string renamed(std::string_view name) const;
  /// Appends `a` to the agents, with its name's `hash` and scan state.
  void add_agent(std::unique_ptr<Agent> a, std::size_t hash);
  /// The thread agent kept at `id`'s place, when every agent and object
  /// so far repeats the execution before's and so does `name`: its name is
  /// free, its hash kept (nullptr otherwise).
  std::unique_ptr<ThreadAgent> take_repeated(AgentId id, std::string_view name);
  /// A thread agent for spawn to reset: the one kept at `id`'s place, a
  /// spare one of this OS thread, or a new one.
  std::unique_ptr<ThreadAgent> take_thread(AgentId id, std::string_view name,
                                           std::function<void()>&& body);
  /// Hands the kept thread agents' fibers to the pool and the agents to
  /// this OS thread's spares (destructor).
  void release_kept_threads() noexcept;
  void start_new_threads();
  void run_thread_body(ThreadAgent& t, const std::function<void()>& body);
  void run_thread_step(ThreadAgent& t);
  /// Makes `t` the running agent of a new step, its operation taken (every
  /// thread step starts so, with or without a switch).
  [[gnu::always_inline]] inline void start_step(ThreadAgent& t);
  /// The fast thread step of run() (see Fiber::enter): before and after the
  /// switch, which run() makes in its own frame.
  void begin_fast_step(ThreadAgent& t, sigjmp_buf* point);
  /// From publish(), on `t`'s fiber: when run()'s loop would go straight to
  /// the strategy, asks it here, and starts the step it picks when that is
  /// a thread's. Returns `t`'s fiber when it picked `t` (`t` runs on, with
  /// no switch), another thread's fiber for `t` to hand_to(), or nullptr:
  /// `t` suspends, and the pick (now_.picked), or what the strategy threw
  /// (pick_error_), waits there for run().
  Fiber* pick_here(ThreadAgent& t);
  /// pick_here's pick of another thread: when run() would step it next,
  /// records the step and starts it, for `t` to hand its fiber to (the
  /// returned one). nullptr (nothing done) when run() must carry it out.
  Fiber* hand_off(ThreadAgent& t, AgentId pick);
  /// The stack pick_here leaves to the strategy at least (with less, the
  /// thread switches to run(), whose stack is the OS thread's).
  static constexpr std::size_t kPickHeadroom = 64 * 1024;
  void end_fast_step(ThreadAgent& t);
  /// A fault jumped back to run()'s point during the fast step of `t`.
  void fast_step_faulted(ThreadAgent& t, int why);
  void run_async_step(AsyncAgent& a);
  /// Runs `a`'s next phase as `a` (now_.running stays `a`): on a host fiber of
  /// its own (`own_fiber`, a scheduled step) or on the running thread's.
  void run_phase(AsyncAgent& a, bool own_fiber);
  void handle_fault(ThreadAgent& t, FiberFault why);
  /// Runs host code `fn` (setup, an exit check, an async phase) on a fiber
  /// of the pool under the step watchdog; records a fault or an escaped
  /// exception as a bug of `who`, with `context` as its first detail line.
  /// Returns false when `fn` did not return normally.
  /// `who` is a literal ("kernel setup"): exit() in model code may read it
  /// at any time.
  bool run_host(const std::function<void()>& fn, const char* who, const std::string& context);
  /// Names host work (who, context) only when it is needed: a failure, or
  /// exit() in model code. `make(arg)` builds the two strings.
  struct HostName {
    std::pair<std::string, std::string> (*make)(const void*) = nullptr;
    const void* arg = nullptr;
  };
  /// run_host with a lazily built name (an async phase runs on every step).
  bool run_host(const std::function<void()>& fn, HostName name);
  /// Records a model error when setup built other objects than before.
  void check_setup_determinism(std::uint64_t model);
  /// check_setup_determinism's shortcut: the same model, choices and names
  /// as the setup this OS thread checked last.
  bool same_setup_as_last(std::uint64_t model) const;
  /// check_setup_determinism's shortcut in a renewed execution: the setup
  /// of the execution before was accepted, and this one repeats it, name
  /// for name, under the same model and choices.
  bool repeats_accepted_setup(std::uint64_t model) const;
  /// Records that the check accepted this execution's setup (SetupNames::accepted).
  void accept_setup(std::uint64_t model);
  /// Records the exception `error` that escaped model code run by `who`.
  void fail_escape(std::exception_ptr error, const std::string& who, const std::string& context);
  /// Records fault `why` of model code run by `who`.
  void fail_fault(FiberFault why, const std::string& who, const std::string& context);
  /// "after OP at LINE" for thread `t`'s last visible operation.
  std::string last_op_text(const ThreadAgent& t) const;
  /// Called when model code calls exit(): reports it and ends the process.
  static void on_model_exit(int status);
  /// Evaluates which agents are enabled into `enabled` (the last scan's set,
  /// updated, when that suffices); an await predicate that throws becomes a
  /// bug (returns false).
  bool scan_enabled(std::vector<AgentId>& enabled);
  /// True when the last scan's set still holds (less the agent that ran, if
  /// it went idle): no agent was kAsk then, and none was added or is now.
  bool scan_shortcut() const noexcept {
    return now_.scan_size == ready_.size() && !now_.scan_ask && ready_[now_.last_ran] != kAsk;
  }
  /// run()'s work before each pick: the scan, the end of the execution
  /// (deadlock, exit checks), the step limit and the deadline; the next
  /// step's number. An Ending when the execution ends there.
  std::optional<Ending> before_pick();
  void report_deadlock();
  void report_step_limit();
  void run_exit_checks();
  void record_event(Agent& a);
  /// The agent a clock effect applies to: the running one, or the host in setup.
  Agent& effect_agent() noexcept { return now_.running != nullptr ? *now_.running : host_; }
  /// After `a` released or fenced: its later accesses are not covered. The
  /// host (setup) has no clock entry of its own: its writes are initial contents.
  void tick_after(Agent& a) {
    if (&a != &host_) a.clock.tick(a.id);
  }
  /// The running agent when the clock effects on `s` take the common case
  /// (an agent's step, clocks inline, no commit clock set); else nullptr.
  [[gnu::always_inline]] inline Agent* plain_clocks(const SyncClock& s) const noexcept;
  /// The clock effects where plain_clocks() says nullptr (out of line).
  [[gnu::noinline]] void acquire_slow(const SyncClock& s);
  [[gnu::noinline]] void release_slow(SyncClock& s);
  [[gnu::noinline]] void acquire_release_slow(SyncClock& s);
  /// record_event for an async agent's step, a footprint on the heap, or a
  /// trace that must grow.
  [[gnu::noinline]] void record_event_slow(Agent& a);
  /// Appends `a`'s step, running `op`, to the trace.
  [[gnu::always_inline]] inline void append_event(Agent& a, const PendingOp& op);
  std::vector<AgentId> enabled_agents() const;

  ExecutionLimits limits_;
  StackPool& pool_;
  Arena* arena_ = nullptr;  // model objects (make); recycled between executions
  std::exception_ptr pick_error_;  // (apart from Now, which stays trivial to assign)
  std::vector<AgentId> enabled_;  // the last scan's enabled agents
  // Hash of each agent's name (name_taken's filter); kept for a renewed
  // execution's agents of the same place and name.
  std::vector<std::size_t> name_hash_;
  // Per place in agents_, the thread agent there when this execution was
  // renewed, with its idle fiber: the renewed one's spawn at that place takes it.
  std::vector<std::unique_ptr<ThreadAgent>> kept_threads_;
  std::unique_ptr<Fiber> host_fiber_;  // run_host's idle fiber, kept when renewed
  // An object made by make(): destroyed, in creation order, when the
  // execution ends; its memory belongs to arena_.
  struct Owned {
    void* object;
    void (*destroy)(void*) noexcept;
  };
  std::vector<Owned> owned_;
  // The vectors whose capacity an execution hands to the next one on its
  // OS thread (an explorer runs the same model over and over): each
  // execution saves their allocations. Nested executions start empty.
  struct Spare {
    std::vector<std::unique_ptr<Agent>> agents;
    std::vector<std::uint8_t> ready;
    std::vector<std::size_t> name_hash;
    std::vector<std::string> object_names;
    std::vector<std::uint32_t> object_creators;
    std::vector<std::pair<ObjectId, const Describable*>> described;
    std::vector<Owned> owned;
    std::vector<AgentId> enabled;
  };
  static thread_local Spare spare_;
  /// Hands this execution's emptied vectors to spare_, for the next one (destructor).
  void give_back_vectors() noexcept;
  /// Destroys the async agents and model objects, keeps the thread agents
  /// (kept_threads_) with their idle fibers, returns the arena and empties
  /// the vectors (their capacity stays).
  void tear_down() noexcept;
  /// Takes the arena the execution before last used (a new one at first).
  void take_arena();
  struct ExitCheck {
    std::function<void()> fn;
    std::source_location loc;  // where it was registered
  };
  std::vector<ExitCheck> exit_checks_;
  HostAgent host_;  // the setup code's clocks (initial contents happen before all)
  Execution* previous_ = nullptr;
};

}  // namespace heddle
