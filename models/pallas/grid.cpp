// The grid loop of one kernel thread. Grid points run in Pallas's order
// (row-major, the last dimension fastest); on a device with several cores
// the first "parallel" dimension is split into one contiguous share per
// core (megacore). A blocked operand's block is copied in by DMA when its
// block index changes, and copied out when the next point's index differs
// or at the end, as the Pallas TPU pipeline does. Copies are waited before
// the body runs (inputs) or before the next point (outputs).
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

// Copies block `b` between HBM and the operand's VMEM/SMEM buffer by DMAs
// (one per contiguous run), started together and then waited.
void copy_block(const Launch& l, const Operand& o, const Point& b, bool in,
                const ThreadContext& c) {
  const auto loc = l.program->kernel_loc;
  auto elems = hbm_block(o, b, loc).elements();
  Region& hbm = region_of(*o.hbm, c.device, c.core);
  Region& buf = region_of(*o.kernel_ref.alloc, c.device, c.core);
  std::vector<tpu::AsyncCopy> copies;
  std::size_t pos = 0, i = 0;
  while (i < elems.size()) {
    std::size_t j = i + 1;
    while (j < elems.size() && elems[j] == elems[j - 1] + 1) ++j;
    tpu::Place h{&hbm, static_cast<std::size_t>(elems[i]), j - i}, v{&buf, pos, j - i};
    copies.push_back(in ? tpu::make_copy(h, v, l.pipeline_sem, loc)
                        : tpu::make_copy(v, h, l.pipeline_sem, loc));
    copies.back().start(loc);
    pos += j - i;
    i = j;
  }
  for (auto& copy : copies) copy.wait(loc);
}
}  // namespace

void run_core(const Launch& l) {
  const Program& p = *l.program;
  ThreadContext ctx;
  ctx.device = tpu::device_id(p.kernel_loc);
  ctx.core = tpu::core_id(p.kernel_loc);
  ctx.program = &p;
  ctx.scoped = &l.scoped;
  auto points = points_of(p, ctx.core, tpu::Mesh::current().cores());
  std::vector<Slot> args;
  for (const auto& o : l.operands) args.emplace_back(o.kernel_ref);
  for (const auto& s : l.scratch) args.emplace_back(s);
  std::vector<Point> current(l.operands.size());
  for (std::size_t n = 0; n < points.size(); ++n) {
    ctx.program_ids = points[n];
    Interp in(ctx);
    std::vector<Point> next(l.operands.size());
    for (std::size_t k = 0; k < l.operands.size(); ++k) {
      const Operand& o = l.operands[k];
      if (!o.block) continue;
      Point b = block_index(in, l, o, points[n]);
      if (!o.is_output && (n == 0 || b != current[k])) copy_block(l, o, b, true, ctx);
      current[k] = b;
    }
    in.eval(p.kernel, args);
    for (std::size_t k = 0; k < l.operands.size(); ++k) {
      const Operand& o = l.operands[k];
      if (!o.block || !o.is_output) continue;
      bool last = n + 1 == points.size();
      if (last || block_index(in, l, o, points[n + 1]) != current[k])
        copy_block(l, o, current[k], false, ctx);
    }
  }
}

}  // namespace heddle::pallas
