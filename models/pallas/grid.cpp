// The grid loop of one kernel thread. Grid points run in Pallas's order
// (row-major, the last dimension fastest); on a device with several cores
// the first "parallel" dimension is split into one contiguous share per
// core (megacore). Blocked operands are double-buffered: every block copy
// is a DMA on the buffer's own semaphore, so the explorer runs them in any
// order the waits allow, as on the chip.
#include <fmt/format.h>

#include "checker/engine/errors.hpp"
#include "models/pallas/pipeline.hpp"

namespace heddle::pallas {
namespace {

using Point = std::vector<std::int64_t>;

// The grid points of `core`, in order.
std::vector<Point> points_of(const Program& p, std::uint32_t core, std::uint32_t cores) {
  std::size_t split = p.grid.size();
  for (std::size_t d = 0; d < p.grid.size() && cores > 1; ++d)
    if (p.dimension_semantics.at(d).find("parallel") != std::string::npos) {
      split = d;
      break;
    }
  if (cores > 1 && split == p.grid.size() && core > 0) return {};  // no parallel dim: core 0 only
  std::vector<Point> out;
  Point pt(p.grid.size(), 0);
  std::int64_t total = 1;
  for (auto g : p.grid) total *= g;
  for (std::int64_t flat = 0; flat < total; ++flat) {
    std::int64_t rest = flat;
    for (std::size_t d = p.grid.size(); d-- > 0;) {
      pt[d] = rest % p.grid[d];
      rest /= p.grid[d];
    }
    if (split < p.grid.size()) {
      std::int64_t n = p.grid[split], per = (n + cores - 1) / cores;
      if (pt[split] / per != core) continue;
    }
    out.push_back(pt);
  }
  return out;
}

Point block_index(Interp& in, const Launch& l, const Operand& o, const Point& pt) {
  std::vector<Slot> args;
  for (auto i : pt) args.emplace_back(Value::scalar(DType::i32, static_cast<double>(i)));
  for (std::size_t k = 0; k < l.program->num_index_operands; ++k)
    args.emplace_back(l.operands[k].kernel_ref);
  Point b;
  for (const auto& s : in.eval(o.block->index_map, args)) b.push_back(std::get<Value>(s).index());
  return b;
}

// The HBM view of block `b` of operand `o`.
RefBinding hbm_block(const Operand& o, const Point& b, std::source_location loc) {
  RefBinding r;
  r.alloc = o.hbm;
  r.dtype = o.dtype;
  auto dense = dense_dims(o.array_shape);
  for (std::size_t d = 0; d < dense.size(); ++d) {
    auto size = o.block->block_shape.at(d).value_or(1);
    auto start = o.block->block_shape[d] ? b.at(d) * size : b.at(d);
    if (start < 0 || start + size > dense[d].size)
      throw ModelError(fmt::format("block {} of {} is outside the array (dimension {}, size {})",
                                   start / std::max<std::int64_t>(size, 1), o.kernel_ref.name, d,
                                   dense[d].size), loc);
    r.offset += start * dense[d].stride;
    r.dims.push_back(Dim{size, dense[d].stride});
  }
  return r;
}

using Copies = std::vector<tpu::AsyncCopy>;

// Starts the DMAs (one per contiguous run) that move block `b` between HBM
// and buffer `slot` of the operand: in (HBM to buffer) or out.
Copies start_copy(const Program& p, const Operand& o, const Point& b, int slot, bool in,
                  const ThreadContext& c) {
  const auto loc = p.kernel_loc;
  auto elems = hbm_block(o, b, loc).elements();
  Region& hbm = region_of(*o.hbm, c.device, c.core);
  Region& buf = region_of(*o.kernel_ref.alloc, c.device, c.core);
  const tpu::Sem& sem = o.sems.at(static_cast<std::size_t>(slot));
  Copies copies;
  auto pos = static_cast<std::size_t>(slot * o.block_elems);
  std::size_t i = 0;
  while (i < elems.size()) {
    std::size_t j = i + 1;
    while (j < elems.size() && elems[j] == elems[j - 1] + 1) ++j;
    tpu::Place h{&hbm, static_cast<std::size_t>(elems[i]), j - i}, v{&buf, pos, j - i};
    copies.push_back(in ? tpu::make_copy(h, v, sem, loc) : tpu::make_copy(v, h, sem, loc));
    copies.back().start(loc);
    pos += j - i;
    i = j;
  }
  return copies;
}

void wait_all(Copies& copies, std::source_location loc) {
  for (auto& c : copies) c.wait(loc);
  copies.clear();
}

// The double-buffer state of one blocked operand along the grid loop.
struct Buffers {
  Point index;                 // block in the current buffer
  int slot = 0;                // the buffer the body uses now
  Copies in_flight[2];         // copies into (inputs) or out of (outputs) each buffer
};
}  // namespace

// Pallas's TPU pipeline, per grid point n: wait for the input blocks of n,
// start fetching those of n+1 into the other buffers, run the body, start
// writing back the output blocks that change after n; an output buffer is
// reused only after its write-back is waited.
void run_core(const Launch& l) {
  const Program& p = *l.program;
  ThreadContext ctx;
  ctx.device = tpu::device_id(p.kernel_loc);
  ctx.core = tpu::core_id(p.kernel_loc);
  ctx.program = &p;
  ctx.scoped = &l.scoped;
  const auto loc = p.kernel_loc;
  auto points = points_of(p, ctx.core, tpu::Mesh::current().cores());
  std::vector<Buffers> st(l.operands.size());
  for (std::size_t n = 0; n < points.size(); ++n) {
    ctx.program_ids = points[n];
    Interp in(ctx);
    std::vector<Slot> args;
    for (std::size_t k = 0; k < l.operands.size(); ++k) {
      const Operand& o = l.operands[k];
      RefBinding ref = o.kernel_ref;
      if (o.block) {
        Buffers& b = st[k];
        Point now = block_index(in, l, o, points[n]);
        if (n == 0 && !o.is_output) b.in_flight[0] = start_copy(p, o, now, 0, true, ctx);
        if (n > 0 && now != b.index) b.slot ^= 1;
        b.index = now;
        wait_all(b.in_flight[b.slot], loc);  // input: the fetch; output: the old write-back
        if (!o.is_output && n + 1 < points.size()) {
          Point next = block_index(in, l, o, points[n + 1]);
          if (next != now) b.in_flight[b.slot ^ 1] = start_copy(p, o, next, b.slot ^ 1, true, ctx);
        }
        ref.offset = b.slot * o.block_elems;
      }
      args.emplace_back(std::move(ref));
    }
    for (const auto& s : l.scratch) args.emplace_back(s);
    in.eval(p.kernel, args);
    for (std::size_t k = 0; k < l.operands.size(); ++k) {
      const Operand& o = l.operands[k];
      if (!o.block || !o.is_output) continue;
      Buffers& b = st[k];
      if (n + 1 == points.size() || block_index(in, l, o, points[n + 1]) != b.index)
        b.in_flight[b.slot] = start_copy(p, o, b.index, b.slot, false, ctx);
    }
  }
  for (auto& b : st)
    for (auto& c : b.in_flight) wait_all(c, loc);
}

}  // namespace heddle::pallas
