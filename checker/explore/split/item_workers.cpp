#include "checker/explore/split/item_workers.hpp"

#include <thread>

#include "checker/engine/errors.hpp"
#include "checker/engine/execution.hpp"
#include "checker/explore/strategies/dpor.hpp"

namespace heddle {

ItemPass::ItemPass(const Kernel& kernel, const Params& params, const RunConfig& config,
                   const WorkSplit& split, std::vector<std::size_t> mine, ExecutionLimits limits,
                   std::chrono::steady_clock::time_point start, ExecutionObserver observer)
    : kernel(kernel),
      params(params),
      config(config),
      split(split),
      mine(std::move(mine)),
      states(this->mine.size()),
      limits(limits),
      start(start),
      observer(std::move(observer)),
      finished(this->mine.size(), 0),
      calls(this->mine.size()),
      skipped(this->mine.size(), 0) {}

namespace {
// For the guarded entry `pos`: waits until the entries of its range are
// finished (or cut), then says whether one called for it.
bool called_for(ItemPass& sh, std::size_t pos) {
  const dpor::Guard& guard = *sh.split.items[sh.mine[pos]].guard;
  if (sh.config.explore_guarded) return true;
  std::unique_lock lock(sh.done_mu);
  bool called = false;
  for (std::size_t q = pos; q-- > 0 && sh.mine[q] >= guard.from;) {
    sh.done_cv.wait(lock, [&] { return sh.finished[q] || pos > sh.cut.load(); });
    called |= guard.called_by(sh.calls[q]);
  }
  return called;
}

// Marks entry `pos` finished with the guarded items it called for.
void finish(ItemPass& sh, std::size_t pos, std::vector<std::uint32_t> calls) {
  {
    std::lock_guard lock(sh.done_mu);
    sh.calls[pos] = std::move(calls);
    sh.finished[pos] = 1;
  }
  sh.done_cv.notify_all();
}

// True when every entry of guarded entry `pos`'s range has finished.
bool range_finished(ItemPass& sh, std::size_t pos) {
  const dpor::Guard& guard = *sh.split.items[sh.mine[pos]].guard;
  std::lock_guard lock(sh.done_mu);
  for (std::size_t q = pos; q-- > 0 && sh.mine[q] >= guard.from;)
    if (!sh.finished[q]) return false;
  return true;
}

// Explores entry `pos` of mine (a guarded one only when called for).
void work_item(ItemPass& sh, std::size_t pos, StackPool& pool,
               std::unique_ptr<DporStrategy>& strategy) {
  LoopState& st = sh.states[pos];
  if (sh.config.max_executions) st.executions = &sh.executions;
  if (sh.split.items[sh.mine[pos]].guard && !called_for(sh, pos)) {
    st.result.exhaustive = true;  // no race calls for it: it owns no trace
    sh.skipped[pos] = 1;
    finish(sh, pos, {});
    return;
  }
  if (strategy)
    strategy->start(sh.split, sh.mine[pos]);
  else
    strategy = std::make_unique<DporStrategy>(sh.split, sh.mine[pos]);
  auto stop = [&]() -> std::string {
    if (pos > sh.cut.load()) return "cut";  // an earlier item has the run's bug
    return budget_spent(sh.config, sh.executions.load(std::memory_order_relaxed), sh.start);
  };
  run_loop(sh.kernel, sh.params, sh.config, *strategy, pool, sh.limits, sh.observer, stop, st);
  if (st.result.bug && sh.config.stop_at_first_bug) {
    std::size_t cur = sh.cut.load();
    while (pos < cur && !sh.cut.compare_exchange_weak(cur, pos)) {
    }
    sh.done_cv.notify_all();
  }
  finish(sh, pos, strategy->calls());
}

// Takes items in order and explores each, until none is left. A guarded
// item whose range is still running waits at the end instead, so that a
// worker does not idle while another finishes the items it depends on.
void work_items(ItemPass& sh, StackPool& pool) {
  std::unique_ptr<DporStrategy> strategy;  // one per worker, restarted for each item
  for (;;) {
    const std::size_t pos = sh.next.fetch_add(1);
    if (pos >= sh.mine.size() || pos > sh.cut.load()) break;
    if (sh.split.items[sh.mine[pos]].guard && !range_finished(sh, pos)) {
      std::lock_guard lock(sh.done_mu);
      sh.later.insert(pos);
      continue;
    }
    work_item(sh, pos, pool, strategy);
  }
  for (;;) {
    std::size_t pos = 0;
    {
      std::lock_guard lock(sh.done_mu);
      if (sh.later.empty()) return;
      pos = *sh.later.begin();  // it waits only for smaller entries, taken before it
      sh.later.erase(sh.later.begin());
    }
    if (pos > sh.cut.load()) continue;
    work_item(sh, pos, pool, strategy);
  }
}

// work_items on `pool`, its error kept for the caller (every worker stops).
void work(ItemPass& sh, StackPool& pool) {
  try {
    work_items(sh, pool);
  } catch (...) {
    std::lock_guard lock(sh.failed_mu);
    if (!sh.failed) sh.failed = std::current_exception();
    sh.cut.store(0);
  }
}

}  // namespace

void run_items(ItemPass& pass, std::uint32_t jobs, StackPool& pool) {
  std::vector<std::thread> workers;
  for (std::uint32_t j = 1; j < jobs; ++j)
    workers.emplace_back([&pass] {
      FaultHandlers handlers;  // this thread's signal stack
      arm_step_watchdog(pass.config.step_timeout);
      StackPool own(pass.config.stack_bytes);
      work(pass, own);
    });
  work(pass, pool);  // the caller's thread is a worker too, on its warm fibers
  for (auto& w : workers) w.join();
  if (pass.failed) std::rethrow_exception(pass.failed);
}

}  // namespace heddle
