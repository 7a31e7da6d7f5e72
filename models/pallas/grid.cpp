// The grid loop of one kernel thread. Grid points run in Pallas's order
// (row-major, the last dimension fastest); on a device with several cores
// the first "parallel" dimension is split into one contiguous share per
// core (megacore). Blocked operands are double-buffered: every block copy
// is a DMA on the buffer's own semaphore, so the explorer runs them in any
// order the waits allow, as on the chip. The loop itself is the C++
// vocabulary's (models/tpu/pipeline.hpp); this file feeds it the jaxpr's
// index maps and the interpreted body.
#include "models/pallas/pipeline.hpp"
#include "models/tpu/pipeline.hpp"

namespace heddle::pallas {
namespace {

using Point = tpu::GridPoint;

Point block_index(Interp& in, const Launch& l, const Operand& o, const Point& pt) {
  std::vector<Slot> args;
  for (auto i : pt) args.emplace_back(Value::scalar(DType::i32, static_cast<double>(i)));
  for (std::size_t k = 0; k < l.program->num_index_operands; ++k)
    args.emplace_back(l.operands[k].kernel_ref);
  Point b;
  for (const auto& s : in.eval(o.block->index_map, args)) b.push_back(std::get<Value>(s).index());
  return b;
}

// The pipeline's view of blocked operand `o`: its index map evaluated at
// each grid point, and the DMAs (one per contiguous run) that move block
// `b` between HBM and buffer `slot` of the operand.
tpu::PipelineOperand pipelined(const Launch& l, const Operand& o, const ThreadContext& c,
                               const std::vector<Point>& points) {
  tpu::PipelineOperand op;
  op.is_output = o.is_output;
  op.block_at = [&l, &o, &c, &points](std::size_t n) {
    ThreadContext at = c;
    at.program_ids = points[n];
    Interp in(at);
    return block_index(in, l, o, points[n]);
  };
  op.start = [&l, &o, &c](const Point& b, int slot, bool in) {
    const auto loc = l.program->kernel_loc;
    auto elems = tpu::block_layout(o.array_shape, o.block->block_shape, b, o.kernel_ref.name, loc);
    Region& hbm = region_of(*o.hbm, c.device, c.core);
    Region& buf = region_of(*o.kernel_ref.alloc, c.device, c.core);
    auto be = static_cast<std::size_t>(o.block_elems);
    return tpu::start_block_copies(tpu::Place{&hbm, 0, hbm.size()}, elems,
                                   tpu::Place{&buf, static_cast<std::size_t>(slot) * be, be},
                                   o.sems.at(static_cast<std::size_t>(slot)), in, loc);
  };
  return op;
}
}  // namespace

// Pallas's TPU pipeline over this core's grid points (tpu::run_pipeline):
// the body sees buffer `slot` of each blocked operand, the HBM array of
// the others, then the scratch operands.
void run_core(const Launch& l) {
  const Program& p = *l.program;
  ThreadContext ctx;
  ctx.device = tpu::device_id(p.kernel_loc);
  ctx.core = tpu::core_id(p.kernel_loc);
  ctx.program = &p;
  ctx.scoped = &l.scoped;
  ctx.clip_out_of_bounds = l.clip_out_of_bounds;
  auto points = tpu::grid_points(p.grid, p.dimension_semantics, ctx.core,
                                 tpu::Mesh::current().cores());
  std::vector<tpu::PipelineOperand> ops;
  for (const Operand& o : l.operands)
    if (o.block) ops.push_back(pipelined(l, o, ctx, points));
  auto body = [&](std::size_t n, const std::vector<int>& slots) {
    ctx.program_ids = points[n];
    Interp in(ctx);
    std::vector<Slot> args;
    std::size_t blocked = 0;
    for (const Operand& o : l.operands) {
      RefBinding ref = o.kernel_ref;
      if (o.block) ref.offset = slots[blocked++] * o.block_elems;
      args.emplace_back(std::move(ref));
    }
    for (const auto& s : l.scratch) args.emplace_back(s);
    in.eval(p.kernel, args);
  };
  tpu::run_pipeline(points.size(), ops, body, p.kernel_loc);
}

}  // namespace heddle::pallas
