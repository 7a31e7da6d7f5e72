// The thread side of an execution: running fiber steps, faults, deadlocks.
#include <boost/context/detail/exception.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "checker/engine/errors.hpp"
#include "checker/engine/execution.hpp"
#include "checker/engine/strategy.hpp"
#include "checker/engine/user_site.hpp"

namespace heddle {

std::string Execution::last_op_text(const ThreadAgent& t) const {
  if (t.events == 0) return "before its first visible operation";
  return fmt::format("after {} at {}", describe(t.op.name, t.op.object, t.op.has_object),
                     where(t.op.loc));
}

void Execution::run_thread_body(ThreadAgent& t, const std::function<void()>& body) {
  try {
    body();
  } catch (const boost::context::detail::forced_unwind&) {
    throw;  // the execution is being torn down
  } catch (const FiberUnwind&) {
    throw;
  } catch (...) {
    fail_escape(std::current_exception(), t.name, last_op_text(t));
  }
  t.finished = true;
  t.has_pending = false;
}

void Execution::start_new_threads() {
  while (now_.started < agents_.size()) {
    Agent& a = *agents_[now_.started++];
    if (a.kind != Agent::Kind::thread) continue;
    auto& t = static_cast<ThreadAgent&>(a);
    t.started = true;
    run_thread_step(t);
    // An execution that runs on past its bug still starts every thread
    // here, before the next step: starting the rest later would tie their
    // setup (and what it issues) to whichever step happened to come next.
    if (bug_ && !limits_.finish_after_bug) return;
  }
}

inline void Execution::start_step(ThreadAgent& t) {
  now_.running = &t;
  t.has_pending = false;
  ready_[index(t.id)] = kIdle;  // until the thread publishes its next operation
  watchdog_enter_step();
}

void Execution::run_thread_step(ThreadAgent& t) {
  start_step(t);
  FiberFault why = t.fiber->resume();
  watchdog_leave_step();
  now_.running = nullptr;
  if (why != FiberFault::none) handle_fault(t, why);
}

void Execution::begin_fast_step(ThreadAgent& t, sigjmp_buf* point) {
  // run_thread_step up to the switch.
  now_.fast = &t;
  start_step(t);
  t.fiber->enter(point);
}

Fiber* Execution::pick_here(ThreadAgent& t) {
  // Only where run() would go from this switch straight to the strategy:
  // every thread started, no bug, the scan's shortcut (scan_enabled) holds
  // with `t` ready again, no step limit or deadline check due, and room on
  // this stack for the strategy's frames.
  // (`t` first: with now_.last_ran == me and ready_[me] == kReady, the
  // shortcut's test of ready_[now_.last_ran] needs no second load.)
  const std::size_t me = index(t.id);
  if (now_.last_ran != me || ready_[me] != kReady || now_.started != agents_.size() || bug_ ||
      !scan_shortcut() || now_.step >= limits_.max_steps ||
      ((now_.step + 1) & 1023) == 0 || step_watchdog_fired() ||
      t.fiber->headroom() < kPickHeadroom)
    return nullptr;
  now_.running = nullptr;  // as the strategy sees it from run(): between steps
  ++now_.step;
  AgentId pick;
  try {
    pick = now_.strategy->pick(Choice{now_.step, enabled_, *this});
  } catch (...) {
    pick_error_ = std::current_exception();
    pick = kAbandon;
  }
  if (!pick_error_) {
    if (pick == t.id) {
      // run()'s step of `t` (record_event, begin_fast_step), without the switch.
      record_event(t);
      start_step(t);
      return t.fiber.get();
    }
    if (Fiber* next = hand_off(t, pick)) return next;
  }
  now_.running = &t;
  now_.picked = pick;
  now_.has_picked = true;
  return nullptr;
}

Fiber* Execution::hand_off([[maybe_unused]] ThreadAgent& t, [[maybe_unused]] AgentId pick) {
#ifdef HEDDLE_ASAN
  return nullptr;  // its thread steps resume() from run_thread_step, no enter()
#else
  // run()'s step of another thread (record_event, begin_fast_step), to be
  // switched to from `t`'s fiber (Fiber::hand_to takes over enter()'s state).
  // Under pick_here's scan shortcut, the enabled agents are the kReady ones.
  if (pick == kAbandon || now_.fast != &t || !surely_enabled(pick)) return nullptr;
  Agent& a = *agents_[index(pick)];
  if (a.kind != Agent::Kind::thread) return nullptr;
  auto& next = static_cast<ThreadAgent&>(a);
  now_.last_ran = index(pick);
  record_event(next);
  now_.fast = &next;
  start_step(next);  // the watchdog's next step (`t`'s ends here)
  return next.fiber.get();
#endif
}

void Execution::end_fast_step(ThreadAgent& t) {
  t.fiber->leave();
  watchdog_leave_step();
  now_.running = nullptr;
}

void Execution::fast_step_faulted(ThreadAgent& t, int why) {
  t.fiber->faulted(why);
  watchdog_leave_step();
  now_.running = nullptr;
  handle_fault(t, static_cast<FiberFault>(why));
}

void Execution::handle_fault(ThreadAgent& t, FiberFault why) {
  t.finished = true;
  t.has_pending = false;
  fail_fault(why, t.name, last_op_text(t));
}

void Execution::report_deadlock() {
  BugReport b;
  b.kind = Verdict::deadlock;
  b.title = "no agent can run, but some threads have not finished";
  for (const auto& a : agents_) {
    if (a->finished) continue;
    const auto& op = a->pending();
    std::string line = fmt::format("{} blocked at {} at {}", a->name,
                                   describe(op.name, op.object, op.has_object), where(op.loc));
    // The state of what it waits on (an mbarrier's phase, pending arrivals
    // and tx-count; a semaphore's count), as replay --steps shows it.
    if (op.has_object)
      for (const auto& [id, d] : described_)
        if (id == op.object) {
          if (std::string words = d->describe(); !words.empty())
            line += fmt::format(" ({}: {})", object_name(id), words);
          break;
        }
    b.details.push_back(std::move(line));
  }
  fail(std::move(b));
}

void Execution::report_step_limit() {
  // Name the agent that ran most in the recent past and its operations.
  constexpr std::size_t kWindow = 64;
  std::size_t from = trace_.size() > kWindow ? trace_.size() - kWindow : 0;
  std::map<std::uint32_t, int> runs;
  for (std::size_t i = from; i < trace_.size(); ++i) ++runs[index(trace_[i].agent)];
  std::uint32_t busiest = 0;
  int most = -1;
  for (auto [agent, n] : runs)
    if (n > most) most = n, busiest = agent;
  BugReport b;
  b.kind = Verdict::livelock;
  const std::string& name = agents_[busiest]->name;
  b.title = fmt::format("livelock or unbounded loop: {} steps without finishing; {} keeps running",
                        limits_.max_steps, name);
  std::map<std::string, int> sites;
  std::map<std::string, int> lines;  // source lines of the busiest agent's operations
  for (std::size_t i = from; i < trace_.size(); ++i) {
    if (index(trace_[i].agent) != busiest) continue;
    ++sites[fmt::format("{} at {}", describe(trace_[i].op, trace_[i].object,
                                             trace_[i].has_object),
                        where(trace_[i].loc))];
    ++lines[where(trace_[i].loc)];
  }
  for (auto& [site, n] : sites) b.details.push_back(fmt::format("{} ran {} of the last {} steps", site, n, trace_.size() - from));
  auto loop = std::max_element(lines.begin(), lines.end(),
                               [](auto& x, auto& y) { return x.second < y.second; });
  b.details.push_back(fmt::format(
      "a spin loop at {}? block on heddle::await(predicate, {{objects}}) instead of looping, "
      "or raise --max-steps",
      loop == lines.end() ? std::string("an unknown line") : loop->first));
  fail(std::move(b));
}

}  // namespace heddle
