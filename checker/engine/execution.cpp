// An execution's run loop, its scan of enabled agents, async phases and
// the model-facing calls that record (objects, bugs, notes, choices).
#include "checker/engine/execution.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <stdexcept>
#include <string_view>

#include "checker/engine/interrupt.hpp"

#include "checker/engine/errors.hpp"
#include "checker/engine/program_name.hpp"
#include "checker/engine/strategy.hpp"

namespace heddle {

void Execution::thread_main(void* agent) {
  auto& t = *static_cast<ThreadAgent*>(agent);
  t.execution->run_thread_body(t, t.body);
}

// No execution is current on this OS thread: the model used a heddle object
// or primitive after main returned (a static's destructor), before it began
// (a static's initializer) or on a thread it started itself. That is the
// model's misuse, not heddle's bug (issue 54.3), and no handler of heddle's
// is on this stack to turn an exception into a verdict (a destructor's
// throw would abort), so it is reported here and the program ends.
void Execution::no_current_execution() {
  std::fprintf(stderr,
               "%s: model error: a heddle object or primitive was used while no execution runs "
               "(after main returned, in a static's initializer or destructor, or on a thread the "
               "model started itself): make and use heddle objects only in a kernel's setup, its "
               "threads and its exit checks, and keep none in statics\n",
               program_name().c_str());
  std::fflush(stderr);
  std::_Exit(1);
}

ObjectId Execution::add_object(std::string_view name) {
  object_creators_.push_back(now_.running != nullptr ? index(now_.running->id) : kNoCreator);
  return ObjectId{setup_names_.add_object(name)};
}

void Execution::visible(PendingOp op) {
  if (now_.running == nullptr || now_.running->kind != Agent::Kind::thread) return;
  static_cast<ThreadAgent&>(*now_.running).op = std::move(op);
  publish();
}

void Execution::fail(BugReport bug) {
  static_assert(static_cast<unsigned>(kLastVerdict) < 8, "now_.met has a bit per verdict");
  now_.met |= static_cast<std::uint8_t>(1u << static_cast<unsigned>(bug.kind));
  if (bug_) return;  // the first bug of an execution is the one reported
  bug.step = now_.step;
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

void Execution::restrict_exploration(std::string text) {
  note(text);
  if (std::find(restrictions_.begin(), restrictions_.end(), text) == restrictions_.end())
    restrictions_.push_back(std::move(text));
}

void Execution::observe(std::string key, std::string value) {
  observed_.emplace_back(std::move(key), std::move(value));
}

std::uint32_t Execution::choose(std::uint32_t n) {
  if (n == 0) throw ModelError("heddle::choose(0): a choice needs at least one value");
  if (now_.strategy == nullptr) throw std::logic_error("[heddle bug] choose() without a strategy");
  auto v = n == 1 ? 0u : now_.strategy->choose(n, *this);
  choices_.push_back(DataChoice{now_.step, v, n});
  return v;
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
  now_.strategy = &strategy;
  enabled_.clear();
  now_.scan_size = SIZE_MAX;
  now_.has_picked = false;
#ifndef HEDDLE_ASAN
  // Thread steps switch into their fiber from this frame (Fiber::enter); a
  // fault in one comes back here. Only members are used after the jump back.
  sigjmp_buf point;
  if (int why = sigsetjmp(point, 0); why != 0) {
    fast_step_faulted(*now_.fast, why);
    if (bug_ && !limits_.finish_after_bug) return Ending::bug;
  }
#endif
  for (;;) {
#ifdef HEDDLE_ASAN
    start_new_threads();
#else
    // start_new_threads(), with each thread's first step switched from here.
    while (now_.started < agents_.size()) {
      Agent& a = *agents_[now_.started++];
      if (a.kind != Agent::Kind::thread) continue;
      auto& t = static_cast<ThreadAgent&>(a);
      t.started = true;
      begin_fast_step(t, &point);
      t.fiber->switch_in();
      end_fast_step(*now_.fast);
      if (bug_ && !limits_.finish_after_bug) break;  // see start_new_threads
    }
#endif
    if (bug_ && !limits_.finish_after_bug) return Ending::bug;
    AgentId pick;
    if (now_.has_picked) {
      // The thread that ran last asked the strategy itself (pick_here).
      now_.has_picked = false;
      if (pick_error_) std::rethrow_exception(std::exchange(pick_error_, nullptr));
      pick = now_.picked;
    } else {
      if (std::optional<Ending> end = before_pick()) return *end;
      pick = strategy.pick(Choice{now_.step, enabled_, *this});
    }
    if (pick == kAbandon) {
      --now_.step;
      return Ending::abandoned;
    }
    if (std::find(enabled_.begin(), enabled_.end(), pick) == enabled_.end())
      throw std::logic_error("[heddle bug] strategy picked an agent that is not enabled");
    now_.last_ran = index(pick);
    Agent& a = *agents_[index(pick)];
    record_event(a);
    if (a.kind == Agent::Kind::thread) {
      auto& t = static_cast<ThreadAgent&>(a);
#ifdef HEDDLE_ASAN
      run_thread_step(t);
#else
      begin_fast_step(t, &point);
      t.fiber->switch_in();  // here, not in a callee: see Fiber::suspend
      end_fast_step(*now_.fast);  // `t`, or the last thread handed to (hand_off)
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
    if (now_.assumption_failed) return Ending::discarded;
    for (const auto& a : agents_)
      if (a->kind == Agent::Kind::thread && !a->finished) {
        report_deadlock();
        return Ending::bug;
      }
    run_exit_checks();
    if (bug_) return Ending::bug;
    return now_.assumption_failed ? Ending::discarded : Ending::complete;  // an exit check's assume
  }
  if (now_.step >= limits_.max_steps) {
    report_step_limit();
    return Ending::step_limit;
  }
  ++now_.step;
  if ((now_.step & 1023) == 0 && limits_.deadline != std::chrono::steady_clock::time_point{} &&
      std::chrono::steady_clock::now() > limits_.deadline) {
    --now_.step;
    return Ending::abandoned;  // the run's time is up in the middle of this execution
  }
  if (interrupt_signal() != 0) {  // SIGINT/SIGTERM/SIGHUP: stop at this step (interrupt.hpp)
    --now_.step;
    return Ending::abandoned;
  }
  return std::nullopt;
}

bool Execution::scan_enabled(std::vector<AgentId>& enabled) {
  // A step changes the scan state of the agent that ran and of none other
  // (agents it adds change the size): with no kAsk agent, the last scan's
  // set holds, less that agent if it has gone idle.
  if (scan_shortcut()) {
    if (ready_[now_.last_ran] == kIdle) {
      auto it = std::find(enabled.begin(), enabled.end(),
                          AgentId{static_cast<std::uint32_t>(now_.last_ran)});
      if (it != enabled.end()) enabled.erase(it);  // (it is there: it was picked)
    }
    return true;
  }
  now_.scan_size = ready_.size();
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
  now_.scan_ask = ask;
  return true;
}

void Execution::run_async_step(AsyncAgent& a) {
  run_phase(a, true);
  now_.running = nullptr;
}

void Execution::run_phase(AsyncAgent& a, bool own_fiber) {
  now_.running = &a;
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
  Agent* was = now_.running;
  while (!a.finished) run_phase(a, false);
  now_.running = was;
}

void Execution::run_exit_checks() {
  now_.running = nullptr;
  for (auto& check : exit_checks_) {
    if (bug_ && !limits_.finish_after_bug) return;
    run_host(check.fn, "kernel exit",
             fmt::format("in the exit check registered at {}", where(check.loc)));
  }
}

}  // namespace heddle
