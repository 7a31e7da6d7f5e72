#include "checker/engine/execution.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <map>
#include <stdexcept>
#include <string_view>

#include "checker/engine/errors.hpp"
#include "checker/engine/strategy.hpp"

namespace heddle {
namespace {
// Arenas of finished executions on this OS thread, for the next ones: an
// execution's model objects then cost no heap allocation. (Nested
// executions each take their own.)
thread_local std::vector<std::unique_ptr<Arena>> t_spare_arenas;

// FNV-1a: agent names are a few bytes, where it beats std::hash.
std::size_t name_hash(std::string_view s) noexcept {
  std::uint64_t h = 14695981039346656037ull;
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  return static_cast<std::size_t>(h);
}
// A serial no other execution of the process has: each OS thread takes
// them in blocks, so that split runs' workers do not share a counter's
// cache line every execution.
std::uint64_t next_serial() {
  constexpr std::uint64_t kBlock = 4096;
  static std::atomic<std::uint64_t> blocks{0};
  thread_local std::uint64_t next = 0, end = 0;
  if (next == end) {
    next = blocks.fetch_add(1) * kBlock + 1;
    end = next + kBlock;
  }
  return next++;
}
}  // namespace

Execution::Execution(ExecutionLimits limits, StackPool& pool) : limits_(limits), pool_(pool) {
  previous_ = detail::current_execution;
  detail::current_execution = this;
  set_model_exit_hook(&Execution::on_model_exit);
  serial_ = next_serial();
  // The previous execution's vectors, empty, with their capacity (its
  // sizes, which this one's likely reaches: no regrowth, no string moves).
  // (One reference: each use of the thread_local would call its TLS wrapper.)
  Spare& spare = spare_;
  agents_ = std::move(spare.agents);
  ready_ = std::move(spare.ready);
  name_hash_ = std::move(spare.name_hash);
  setup_names_ = SetupNames(std::move(spare.object_names));
  object_creators_ = std::move(spare.object_creators);
  described_ = std::move(spare.described);
  owned_ = std::move(spare.owned);
  enabled_ = std::move(spare.enabled);
  take_arena();
}

void Execution::take_arena() {
  // Two arenas take turns: consecutive executions never place their
  // objects at the same addresses, so an object kept from the previous
  // execution is caught (its serial) instead of aliasing a fresh one.
  if (t_spare_arenas.size() < 2) {
    arena_ = new Arena;
  } else {
    // The front one (the last returned is at the back), with no shift.
    arena_ = t_spare_arenas.front().release();
    t_spare_arenas.front() = std::move(t_spare_arenas.back());
    t_spare_arenas.pop_back();
  }
}

Execution::~Execution() {
  tear_down();
  release_kept_threads();
  pool_.give_back(std::move(host_fiber_));
  give_back_vectors();
  detail::current_execution = previous_;
}

void Execution::renew() {
  tear_down();
  take_arena();
  setup_names_.renew();
  // Every other member as the constructor leaves it (previous_ stays).
  strategy_ = nullptr;
  scan_size_ = SIZE_MAX;
  scan_ask_ = false;
  last_ran_ = 0;
  has_picked_ = false;
  picked_ = AgentId{};
  pick_error_ = nullptr;
  exit_checks_.clear();
  host_work_ = nullptr;
  observed_.clear();
  notes_.clear();
  trace_.clear();
  choices_.clear();
  bug_.reset();
  met_ = 0;
  running_ = nullptr;
  fast_ = nullptr;
  host_.reset();
  step_ = 0;
  started_ = 0;
  serial_ = next_serial();
  assumption_failed_ = false;
}

void Execution::tear_down() noexcept {
  // While this execution is still current (model destructors may touch it):
  // unwind the fibers stopped inside a body (the idle ones stay with their
  // agents), then destroy the thread bodies, the agents and the model objects.
  for (auto& a : agents_)
    if (a->kind == Agent::Kind::thread)
      if (auto& t = static_cast<ThreadAgent&>(*a); !t.fiber->idle()) pool_.give_back(std::move(t.fiber));
  for (auto& a : agents_)
    if (a->kind == Agent::Kind::thread) static_cast<ThreadAgent&>(*a).body = nullptr;
  if (kept_threads_.size() < agents_.size()) kept_threads_.resize(agents_.size());
  for (std::size_t i = 0; i < agents_.size(); ++i) {
    if (agents_[i]->kind != Agent::Kind::thread) continue;
    // (A place whose kept agent this execution did not take has an async agent now.)
    kept_threads_[i].reset(static_cast<ThreadAgent*>(agents_[i].release()));
  }
  agents_.clear();
  for (const Owned& o : owned_) o.destroy(o.object);
  owned_.clear();
  arena_->rewind();
  t_spare_arenas.emplace_back(arena_);
  arena_ = nullptr;
  ready_.clear();
  object_creators_.clear();
  described_.clear();
  enabled_.clear();
}

thread_local Execution::Spare Execution::spare_;

void Execution::give_back_vectors() noexcept {
  // (tear_down emptied them.)
  Spare& spare = spare_;
  spare.agents = std::move(agents_);
  spare.ready = std::move(ready_);
  spare.name_hash = std::move(name_hash_);
  spare.object_names = std::move(setup_names_).release();
  spare.object_creators = std::move(object_creators_);
  spare.described = std::move(described_);
  spare.owned = std::move(owned_);
  spare.enabled = std::move(enabled_);
}

void Execution::thread_main(void* agent) {
  auto& t = *static_cast<ThreadAgent*>(agent);
  t.execution->run_thread_body(t, t.body);
}

void Execution::no_current_execution() {
  throw std::logic_error("[heddle bug] no execution is current: model primitives must be "
                         "created inside a kernel's setup or its threads");
}

bool Execution::name_taken(std::string_view name, std::size_t hash) const {
  // Compare names only where the hashes agree (a scan of integers).
  for (std::size_t i = 0; i < agents_.size(); ++i)
    if (name_hash_[i] == hash && agents_[i]->name == name) return true;
  return false;
}

std::string Execution::renamed(std::string_view name) const {
  for (int k = 2;; ++k) {
    std::string candidate = fmt::format("{}#{}", name, k);
    if (!name_taken(candidate, name_hash(candidate))) return candidate;
  }
}

std::size_t Execution::claim_name(std::string_view& name, std::string& storage) const {
  // An empty name would read back from a schedule file as a data choice.
  if (name.empty()) throw ModelError("every thread and async agent needs a non-empty name");
  if (agents_.size() >= kMaxAgents)
    throw ModelError(fmt::format("cannot create agent {}: an execution may have at most {} "
                                 "threads and async agents",
                                 name, kMaxAgents));
  const std::size_t hash = name_hash(name);
  if (!name_taken(name, hash)) return hash;
  storage = renamed(name);
  name = storage;
  return name_hash(name);
}

void Execution::adopt(Agent& child) {
  Agent& parent = effect_agent();
  child.clock = parent.clock;
  child.commit = parent.commit;
  child.clock.set(child.id, 1);
  // (-1 also for a thread's prologue before the trace's first event.)
  child.created_by = running_ == nullptr ? -1 : static_cast<int>(trace_.size()) - 1;
  if (running_) running_->clock.tick(running_->id);
}

AgentId Execution::spawn(std::string_view name, std::function<void()>&& body) {
  const AgentId id{static_cast<std::uint32_t>(agents_.size())};
  std::unique_ptr<ThreadAgent> t = take_repeated(id, name);
  std::size_t hash;
  if (t) {
    hash = name_hash_[index(id)];
    t->reset(id, std::move(body));
  } else {
    std::string storage;  // the name with a "#k" suffix, when it is taken
    hash = claim_name(name, storage);
    t = take_thread(id, name, std::move(body));
  }
  t->execution = this;
  if (!t->fiber) t->fiber = pool_.take_fiber();
  t->fiber->start(&Execution::thread_main, t.get());
  adopt(*t);
  add_agent(std::move(t), hash);
  return id;
}

AgentId Execution::issue(std::string_view name, std::vector<Phase> phases,
                         std::source_location loc) {
  std::string storage;
  const std::size_t hash = claim_name(name, storage);
  setup_names_.differ();  // (async agents are not kept)
  const AgentId id{static_cast<std::uint32_t>(agents_.size())};
  const AgentId issuer = running_ ? running_->id : host_.id;
  auto a = std::make_unique<AsyncAgent>(id, std::string(name), issuer, std::move(phases), loc);
  adopt(*a);
  add_agent(std::move(a), hash);
  return id;
}

void Execution::set_wait_hint(AgentId copy, WaitHint hint) {
  Agent& a = *agents_.at(index(copy));
  if (a.kind != Agent::Kind::async)
    throw std::logic_error("[heddle bug] set_wait_hint on a thread: give it an issued copy");
  static_cast<AsyncAgent&>(a).wait_hint = std::move(hint);
}

void Execution::add_agent(std::unique_ptr<Agent> a, std::size_t hash) {
  // (Kept from earlier executions beyond agents_: overwritten in place.)
  if (const std::size_t i = agents_.size(); i < name_hash_.size())
    name_hash_[i] = hash;
  else
    name_hash_.push_back(hash);
  // A thread has nothing pending until it starts; an async agent's phase
  // may have a condition.
  ready_.push_back(a->kind == Agent::Kind::thread || a->finished ? kIdle : kAsk);
  agents_.push_back(std::move(a));
}

std::vector<std::pair<std::string, std::string>> Execution::object_states() const {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& [id, d] : described_) {
    std::string words = d->describe();
    if (!words.empty()) out.emplace_back(object_name(id), std::move(words));
  }
  return out;
}

ObjectId Execution::add_object(std::string_view name) {
  object_creators_.push_back(running_ != nullptr ? index(running_->id) : kNoCreator);
  return ObjectId{setup_names_.add_object(name)};
}

void Execution::visible(PendingOp op) {
  if (running_ == nullptr || running_->kind != Agent::Kind::thread) return;
  static_cast<ThreadAgent&>(*running_).op = std::move(op);
  publish();
}

void Execution::fail(BugReport bug) {
  static_assert(static_cast<unsigned>(kLastVerdict) < 8, "met_ has a bit per verdict");
  met_ |= static_cast<std::uint8_t>(1u << static_cast<unsigned>(bug.kind));
  if (bug_) return;  // the first bug of an execution is the one reported
  bug.step = step_;
  bug_ = std::move(bug);
}

void Execution::fail(Verdict kind, std::string title, std::vector<std::string> details) {
  BugReport b;
  b.kind = kind;
  b.title = std::move(title);
  b.details = std::move(details);
  fail(std::move(b));
}

void Execution::note(std::string text) {
  if (std::find(notes_.begin(), notes_.end(), text) == notes_.end()) notes_.push_back(std::move(text));
}

void Execution::observe(std::string key, std::string value) {
  observed_.emplace_back(std::move(key), std::move(value));
}

std::uint32_t Execution::choose(std::uint32_t n) {
  if (n == 0) throw ModelError("heddle::choose(0): a choice needs at least one value");
  if (strategy_ == nullptr) throw std::logic_error("[heddle bug] choose() without a strategy");
  auto v = n == 1 ? 0u : strategy_->choose(n, *this);
  choices_.push_back(DataChoice{step_, v, n});
  return v;
}

std::string Execution::final_state() const {
  std::map<std::string, std::string> sorted(observed_.begin(), observed_.end());
  std::string out;
  for (auto& [k, v] : sorted) out += fmt::format("{}={}\n", k, v);
  return out;
}

std::string Execution::describe(const char* op, ObjectId object, bool has_object) const {
  if (!has_object) return op;
  return fmt::format("{}({})", op, object_name(object));
}

std::vector<AgentId> Execution::enabled_agents() const {
  std::vector<AgentId> out;
  for (const auto& a : agents_)
    if (a->enabled()) out.push_back(a->id);
  return out;
}

void Execution::record_event(Agent& a) {
  // A thread's step with room in the trace and an inline footprint (most
  // steps) calls nothing: it saves no registers.
  if (a.kind != Agent::Kind::thread || trace_.size() == trace_.capacity() ||
      static_cast<ThreadAgent&>(a).op.footprint.size() > Footprint::kInline) [[unlikely]] {
    record_event_slow(a);
    return;
  }
  append_event(a, static_cast<ThreadAgent&>(a).op);
}

void Execution::record_event_slow(Agent& a) {
  // Agents_ holds threads and async agents only.
  append_event(a, a.kind == Agent::Kind::thread ? static_cast<ThreadAgent&>(a).op : a.pending());
}

void Execution::append_event(Agent& a, const PendingOp& op) {
  // Built in place from its fields: value-initializing an Event first and
  // assigning them costs a block clear per step.
  trace_.emplace_back(a.id, op.name, op.object, op.has_object, op.loc, op.footprint,
                      a.events == 0 ? a.created_by : -1, a.events);
  ++a.events;
}

Ending Execution::run(Strategy& strategy) {
  strategy_ = &strategy;
  enabled_.clear();
  scan_size_ = SIZE_MAX;
  has_picked_ = false;
#ifndef HEDDLE_ASAN
  // Thread steps switch into their fiber from this frame (Fiber::enter); a
  // fault in one comes back here. Only members are used after the jump back.
  sigjmp_buf point;
  if (int why = sigsetjmp(point, 0); why != 0) {
    fast_step_faulted(*fast_, why);
    if (bug_ && !limits_.finish_after_bug) return Ending::bug;
  }
#endif
  for (;;) {
#ifdef HEDDLE_ASAN
    start_new_threads();
#else
    // start_new_threads(), with each thread's first step switched from here.
    while (started_ < agents_.size()) {
      Agent& a = *agents_[started_++];
      if (a.kind != Agent::Kind::thread) continue;
      auto& t = static_cast<ThreadAgent&>(a);
      t.started = true;
      begin_fast_step(t, &point);
      t.fiber->switch_in();
      end_fast_step(*fast_);
      if (bug_ && !limits_.finish_after_bug) break;  // see start_new_threads
    }
#endif
    if (bug_ && !limits_.finish_after_bug) return Ending::bug;
    AgentId pick;
    if (has_picked_) {
      // The thread that ran last asked the strategy itself (pick_here).
      has_picked_ = false;
      if (pick_error_) std::rethrow_exception(std::exchange(pick_error_, nullptr));
      pick = picked_;
    } else {
      if (std::optional<Ending> end = before_pick()) return *end;
      pick = strategy.pick(Choice{step_, enabled_, *this});
    }
    if (pick == kAbandon) {
      --step_;
      return Ending::abandoned;
    }
    if (std::find(enabled_.begin(), enabled_.end(), pick) == enabled_.end())
      throw std::logic_error("[heddle bug] strategy picked an agent that is not enabled");
    last_ran_ = index(pick);
    Agent& a = *agents_[index(pick)];
    record_event(a);
    if (a.kind == Agent::Kind::thread) {
      auto& t = static_cast<ThreadAgent&>(a);
#ifdef HEDDLE_ASAN
      run_thread_step(t);
#else
      begin_fast_step(t, &point);
      t.fiber->switch_in();  // here, not in a callee: see Fiber::suspend
      end_fast_step(*fast_);  // `t`, or the last thread handed to (hand_off)
#endif
    } else {
      run_async_step(static_cast<AsyncAgent&>(a));
    }
    if (bug_ && !limits_.finish_after_bug) return Ending::bug;
  }
}

std::optional<Ending> Execution::before_pick() {
  if (!scan_enabled(enabled_)) return Ending::bug;
  if (enabled_.empty()) {
    // A failed assume() blocks its thread for good: the rest ran as far
    // as it could, and the execution is not one of the model's.
    if (assumption_failed_) return Ending::discarded;
    for (const auto& a : agents_)
      if (a->kind == Agent::Kind::thread && !a->finished) {
        report_deadlock();
        return Ending::bug;
      }
    run_exit_checks();
    if (bug_) return Ending::bug;
    return assumption_failed_ ? Ending::discarded : Ending::complete;  // an exit check's assume
  }
  if (step_ >= limits_.max_steps) {
    report_step_limit();
    return Ending::step_limit;
  }
  ++step_;
  if ((step_ & 1023) == 0 && limits_.deadline != std::chrono::steady_clock::time_point{} &&
      std::chrono::steady_clock::now() > limits_.deadline) {
    --step_;
    return Ending::abandoned;  // the run's time is up in the middle of this execution
  }
  return std::nullopt;
}

bool Execution::scan_enabled(std::vector<AgentId>& enabled) {
  // A step changes the scan state of the agent that ran and of none other
  // (agents it adds change the size): with no kAsk agent, the last scan's
  // set holds, less that agent if it has gone idle.
  if (scan_shortcut()) {
    if (ready_[last_ran_] == kIdle) {
      auto it = std::find(enabled.begin(), enabled.end(),
                          AgentId{static_cast<std::uint32_t>(last_ran_)});
      if (it != enabled.end()) enabled.erase(it);  // (it is there: it was picked)
    }
    return true;
  }
  scan_size_ = ready_.size();
  // The agents' scan states (ready_) decide without touching the agents,
  // and without a branch per agent; only kAsk agents are asked.
  enabled.resize(ready_.size());
  std::size_t on = 0;
  bool ask = false;
  for (std::size_t i = 0; i < ready_.size(); ++i) {
    enabled[on] = AgentId{static_cast<std::uint32_t>(i)};
    on += ready_[i] == kReady;
    ask |= ready_[i] == kAsk;
  }
  if (ask) {
    on = 0;
    std::size_t i = 0;
    try {
      for (; i < ready_.size(); ++i)
        if (ready_[i] == kReady || (ready_[i] == kAsk && agents_[i]->enabled()))
          enabled[on++] = AgentId{static_cast<std::uint32_t>(i)};
    } catch (...) {
      const Agent& a = *agents_[i];
      fail_escape(std::current_exception(), fmt::format("the await condition of {}", a.name),
                  fmt::format("at {}", where(a.pending().loc)));
      return false;
    }
  }
  enabled.resize(on);
  scan_ask_ = ask;
  return true;
}

void Execution::run_async_step(AsyncAgent& a) {
  run_phase(a, true);
  running_ = nullptr;
}

void Execution::run_phase(AsyncAgent& a, bool own_fiber) {
  running_ = &a;
  auto& phase = a.phases[a.next];
  if (phase.effect && own_fiber) {
    run_host(phase.effect, HostName{[](const void* p) {
                                      auto& b = *static_cast<const AsyncAgent*>(p);
                                      return std::pair{
                                          fmt::format("async agent {}", b.name),
                                          fmt::format("in its {} phase; issued at {}",
                                                      b.phases[b.next].name, where(b.loc))};
                                    },
                                    &a});
  } else if (phase.effect) {
    // Inside the issuing thread's step (an eager copy): on its fiber, whose
    // faults are the thread's; model errors are the copy's.
    try {
      phase.effect();
    } catch (const ModelError& e) {
      fail(Verdict::model_error, fmt::format("async agent {} failed: {}", a.name, e.what()));
    }
  }
  if (++a.next == a.phases.size()) {
    a.finished = true;
    ready_[index(a.id)] = kIdle;
  } else {
    a.load_next();
  }
}

void Execution::complete_now(AgentId id) {
  Agent& agent = *agents_.at(index(id));
  if (agent.kind != Agent::Kind::async)
    throw std::logic_error("[heddle bug] complete_now on an agent that is not async");
  auto& a = static_cast<AsyncAgent&>(agent);
  Agent* was = running_;
  while (!a.finished) run_phase(a, false);
  running_ = was;
}

void Execution::run_exit_checks() {
  running_ = nullptr;
  for (auto& check : exit_checks_) {
    if (bug_ && !limits_.finish_after_bug) return;
    run_host(check.fn, "kernel exit",
             fmt::format("in the exit check registered at {}", where(check.loc)));
  }
}

}  // namespace heddle
