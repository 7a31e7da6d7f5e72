// Ampere cp.async (PTX ISA 9.7.9.24.3-5): each lane's copy from global to
// shared memory is an async agent with one phase; its accesses are in the
// generic proxy (cp.async is not a bulk, async-proxy copy). The warp's
// cp.async-groups: commit_group batches the uncommitted copies, wait_group N
// blocks until all but the N newest groups have completed and then acquires
// their copies' releases; wait_all is commit_group then wait_group 0.
#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "models/ptx/warp.hpp"

namespace heddle::ptx {
namespace {

void issue_copy(Warp& w, const Instr& in, int lane) {
  const Type u32{Type::Kind::u, 4};
  auto bytes = static_cast<std::size_t>(w.value(in.args.at(2), lane, u32));
  std::size_t src_bytes = in.args.size() > 3 && in.args[3].kind != Arg::Kind::sink
                              ? static_cast<std::size_t>(w.value(in.args[3], lane, u32))
                              : bytes;
  auto [dst, dst_off] = w.memory(in, in.args.at(0), lane, Space::shared, bytes);
  auto [src, src_off] = w.memory(in, in.args.at(1), lane, Space::global, src_bytes);
  std::string name = fmt::format("{}.cp_async{}", w.thread.name, ++w.cp_issued);
  gpu::BulkOp& op = make<gpu::BulkOp>(name, "cp.async", in.loc);
  gpu::BulkOp* o = &op;
  gpu::Span d{dst, dst_off, bytes}, s{src, src_off, src_bytes};
  std::source_location loc = in.loc;
  issue(name, {phase("copy", {d.touches(true), s.touches(false), touches(op, true)}, [=] {
          s.region->access(s.first, s.count, false, Proxy::generic, "cp.async.read_gmem", loc);
          d.region->access(d.first, d.count, true, Proxy::generic, "cp.async.write_smem", loc);
          std::memcpy(d.region->bytes() + d.first, s.region->bytes() + s.first, s.count);
          std::memset(d.region->bytes() + d.first + s.count, 0, d.count - s.count);  // src-size < cp-size
          o->write_done = true;
          Execution::current().release(o->write_clock);
        })},
        loc);
  w.cp_uncommitted.push_back(o);
}

void wait(Warp& w, const Instr& in, std::uint32_t n) {
  std::vector<gpu::BulkOp*> ops;
  std::size_t k = w.cp_groups.size() > n ? w.cp_groups.size() - n : 0;
  for (std::size_t g = 0; g < k; ++g)
    for (gpu::BulkOp* op : w.cp_groups[g]) ops.push_back(op);
  w.cp_groups.erase(w.cp_groups.begin(), w.cp_groups.begin() + static_cast<long>(k));
  if (ops.empty()) return;  // nothing to wait for: no operation on shared state
  PendingOp p;
  p.name = "cp.async.wait_group";
  p.loc = in.loc;
  p.object = ops.front()->id();
  p.has_object = true;
  for (gpu::BulkOp* op : ops) p.footprint.push_back(touches(*op, false));
  auto done = [&ops] {
    return std::all_of(ops.begin(), ops.end(), [](gpu::BulkOp* op) { return op->write_done; });
  };
  p.enabled = done;
  Execution::current().visible(std::move(p));
  for (gpu::BulkOp* op : ops) Execution::current().acquire(op->write_clock);
}

}  // namespace

void cp_async(Warp& w, const Instr& in, std::uint32_t exec) {
  if (in.op == Op::cp_async) {
    for (int l = 0; l < 32; ++l)
      if (exec >> l & 1) issue_copy(w, in, l);
    return;
  }
  if (in.op == Op::cp_async_commit || in.has("wait_all")) {  // per warp, like bulk groups
    w.cp_groups.push_back(std::move(w.cp_uncommitted));
    w.cp_uncommitted.clear();
  }
  if (in.op == Op::cp_async_wait)
    wait(w, in, in.has("wait_all") ? 0 : static_cast<std::uint32_t>(in.args.at(0).imm));
}

}  // namespace heddle::ptx
