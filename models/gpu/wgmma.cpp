#include "models/gpu/wgmma.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "checker/engine/range_words.hpp"
#include "models/gpu/grid.hpp"
#include "models/gpu/op_groups.hpp"

namespace heddle::gpu {

namespace detail {

std::string view_text(const Region& r, std::size_t first, std::size_t count) {
  if (first == 0 && count == r.size()) return r.name();
  return range_words(r.name(), r.elem_size(), first, count);
}

void issue_wgmma(std::string name, Footprint fp, std::function<void()> effect,
                 std::source_location loc) {
  ThreadState& t = current_grid().current(loc);
  // PTX ISA §9.7.15 (wgmma.fence): an mma_async needs a wgmma.fence after
  // the warpgroup's last register access; the model asks for one since the
  // thread's last wait_group (after which it reads its accumulators).
  if (!t.wgmma_fenced)
    throw ModelError("wgmma.mma_async without a wgmma.fence since the last wgmma.wait_group "
                     "(PTX: wgmma.fence is required before the first mma_async and after "
                     "accumulator accesses; CUTLASS: warpgroup_arrive())",
                     loc);
  ++t.issued;
  BulkOp* op = &make<BulkOp>(name, "wgmma", loc);
  fp.push_back(done_side(*op, true));
  // A warpgroup's mma_async run in issue order: a chain of mmas on one
  // accumulator needs no fence between them (PTX ISA §9.7.15, wgmma.fence),
  // so each one starts after the previous one is done and sees its writes.
  BulkOp* prev = t.last_wgmma;
  if (prev != nullptr) fp.push_back(done_needed(*prev));
  std::function<bool()> after_prev;
  if (prev != nullptr) after_prev = [prev] { return prev->write_done; };
  AgentId agent = issue(name,
        {phase("wgmma.mma", std::move(fp),
               [op, prev, effect = std::move(effect)] {
                 if (prev != nullptr) Execution::current().acquire(prev->write_clock);
                 effect();
                 op->read_done = op->write_done = true;
                 Execution::current().release(op->write_clock);
               },
               after_prev)},
        loc);
  Execution::current().set_wait_hint(agent, [](bool, std::uint32_t) {
    return std::string("commit it (wgmma.commit_group, warpgroup_commit_batch()) and wait with "
                       "wgmma.wait_group N (warpgroup_wait<N>()) deep enough to cover it before "
                       "its stage is released or its accumulator read");
  });
  t.wgmma.uncommitted.push_back(op);
  t.last_wgmma = op;
}

}  // namespace detail

void wgmma_fence(std::source_location loc) { current_grid().current(loc).wgmma_fenced = true; }

void wgmma_commit_group() { commit_group(current_grid().current().wgmma); }

void wgmma_wait_group(std::uint32_t n, std::source_location loc) {
  ThreadState& t = current_grid().current(loc);
  t.wgmma_fenced = false;  // the thread may now touch its accumulators
  wait_group(t.wgmma, n, "wgmma.wait_group", loc);
}

std::size_t wgmma_pending() { return pending_ops(current_grid().current().wgmma); }

}  // namespace heddle::gpu
