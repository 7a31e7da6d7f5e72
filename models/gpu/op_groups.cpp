#include "models/gpu/op_groups.hpp"

#include <algorithm>

namespace heddle::gpu {

void commit_group(BulkQueue& q) {
  // Thread-local bookkeeping: no scheduling point.
  q.groups.push_back(std::move(q.uncommitted));
  q.uncommitted.clear();
}

void wait_ops(std::vector<BulkOp*>& ops, const char* name, std::source_location loc) {
  PendingOp p;
  p.name = name;
  p.loc = loc;
  p.object = ops.front()->id();
  p.has_object = true;
  for (BulkOp* op : ops) p.footprint.push_back(done_needed(*op));
  auto done = [&ops] {
    return std::all_of(ops.begin(), ops.end(), [](BulkOp* op) { return op->write_done; });
  };
  p.enabled = done;
  auto& ex = Execution::current();
  ex.visible(std::move(p));
  for (BulkOp* op : ops) {
    ex.acquire(op->write_clock);
    op->read_waited = op->write_waited = true;
  }
}

void wait_group(BulkQueue& q, std::uint32_t n, const char* name, std::source_location loc) {
  // Groups complete in commit order: all but the n newest are waited whole.
  const std::size_t k = q.groups.size() > n ? q.groups.size() - n : 0;
  std::vector<BulkOp*> ops;
  for (std::size_t g = 0; g < k; ++g)
    for (BulkOp* op : q.groups[g])
      if (!op->write_waited) ops.push_back(op);
  if (!ops.empty()) wait_ops(ops, name, loc);  // else: nothing to wait for, no operation
  q.groups.erase(q.groups.begin(), q.groups.begin() + static_cast<long>(k));
}

std::size_t pending_ops(const BulkQueue& q) {
  std::size_t n = q.uncommitted.size();
  for (const auto& g : q.groups)
    for (const BulkOp* op : g) n += !op->write_waited;
  return n;
}

}  // namespace heddle::gpu
