#include "models/gpu/cp_async.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "models/gpu/bulk_internal.hpp"
#include "models/gpu/grid.hpp"
#include "models/gpu/op_groups.hpp"

namespace heddle::gpu {
namespace {


}  // namespace

void cp_async(const Span& dst, const Span& src, std::optional<std::size_t> src_bytes,
              std::source_location loc) {
  ThreadState& t = current_grid().current(loc);
  const std::size_t n = src_bytes.value_or(src.bytes());
  if (n > dst.bytes() || n > src.bytes() || n % src.region->elem_size() != 0)
    throw ModelError(fmt::format("cp.async of {} source bytes into {} bytes of {}: src-size must "
                                 "not exceed cp-size and must be whole elements",
                                 n, dst.bytes(), dst.region->name()),
                     loc);
  Span s{src.region, src.first, n / src.region->elem_size()};
  std::string name = fmt::format("cp.async {} -> {}", detail::span_text(s), detail::span_text(dst));
  BulkOp* op = &make<BulkOp>(name, "cp.async", loc);
  ++t.issued;
  AgentId agent = issue(name, {phase("cp.async.copy", {dst.touches(true), s.touches(false), done_side(*op, true)},
                     [=] {
                       if (s.count > 0)
                         s.region->access(s.first, s.count, false, Proxy::generic,
                                          "cp.async.read_gmem", loc);
                       dst.region->access(dst.first, dst.count, true, Proxy::generic,
                                          "cp.async.write_smem", loc);
                       std::byte* d = dst.region->bytes() + dst.first * dst.region->elem_size();
                       std::memcpy(d, s.region->bytes() + s.first * s.region->elem_size(), n);
                       std::memset(d + n, 0, dst.bytes() - n);  // zero-fill: src-size < cp-size
                       op->write_done = true;
                       Execution::current().release(op->write_clock);
                     })},
        loc);
  Execution::current().set_wait_hint(agent, [](bool, std::uint32_t) {
    return std::string("commit it (cp.async.commit_group) and wait with cp.async.wait_group N "
                       "(cp_async_wait<N>()) deep enough to cover it, or complete it on an "
                       "mbarrier with cp.async.mbarrier.arrive and wait there");
  });
  t.cp_async.uncommitted.push_back(op);
  t.cp_issued.push_back(op);
}

void cp_async_commit_group() { commit_group(current_grid().current().cp_async); }

void cp_async_wait_group(std::uint32_t n, std::source_location loc) {
  wait_group(current_grid().current(loc).cp_async, n, "cp.async.wait_group", loc);
}

void cp_async_wait_all(std::source_location loc) {
  cp_async_commit_group();
  cp_async_wait_group(0, loc);
}

void cp_async_mbarrier_arrive(Mbarrier& bar, bool noinc, std::source_location loc) {
  ThreadState& t = current_grid().current(loc);
  std::vector<BulkOp*> prior;
  for (BulkOp* op : t.cp_issued)
    if (!op->write_done) prior.push_back(op);
  PendingOp p;
  p.name = noinc ? "cp.async.mbarrier.arrive.noinc" : "cp.async.mbarrier.arrive";
  p.loc = loc;
  p.object = bar.id();
  p.has_object = true;
  p.footprint = {all_phases(bar.id())};
  Execution::current().visible(std::move(p));
  if (!noinc) bar.add_pending();
  Footprint fp{all_phases(bar.id())};
  for (BulkOp* op : prior) fp.push_back(done_side(*op, false));
  Mbarrier* b = &bar;
  auto all_done = [prior] {
    return std::all_of(prior.begin(), prior.end(), [](BulkOp* op) { return op->write_done; });
  };
  issue(fmt::format("cp.async.mbarrier.arrive {}", bar.name()),
        {phase("cp.async.arrive", std::move(fp),
               [b, prior] {
                 for (BulkOp* op : prior) Execution::current().acquire(op->write_clock);
                 b->arrive_effect(0);  // releases the copies' writes into the phase
               },
               all_done)},
        loc);
}

std::size_t cp_async_pending() {
  ThreadState& t = current_grid().current();
  return static_cast<std::size_t>(std::count_if(t.cp_issued.begin(), t.cp_issued.end(),
                                                [](const BulkOp* op) { return !op->write_waited; }));
}

}  // namespace heddle::gpu
