#include "models/tpu/pipeline.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace heddle::tpu {
namespace {

// The first dimension to split across cores, or grid.size() for none.
std::size_t split_dimension(const GridPoint& grid, const std::vector<std::string>& semantics,
                            std::uint32_t cores) {
  for (std::size_t d = 0; d < grid.size() && cores > 1; ++d)
    if (d < semantics.size() && semantics[d].find("parallel") != std::string::npos) return d;
  return grid.size();
}

// Grid point number `flat` in row-major order.
GridPoint point_at(const GridPoint& grid, std::int64_t flat) {
  GridPoint pt(grid.size(), 0);
  for (std::size_t d = grid.size(); d-- > 0;) {
    pt[d] = flat % grid[d];
    flat /= grid[d];
  }
  return pt;
}

// The double-buffer state of one blocked operand along the loop.
struct Buffers {
  GridPoint index;      // the block in the current buffer
  int slot = 0;         // the buffer the body uses now
  Copies in_flight[2];  // copies into (inputs) or out of (outputs) each buffer
};

// Before the body of step n: the block of step n is in b.slot when this returns.
void before_body(const PipelineOperand& op, Buffers& b, std::size_t n, std::size_t steps,
                 std::source_location loc) {
  GridPoint now = op.block_at(n);
  if (n == 0 && !op.is_output) b.in_flight[0] = op.start(now, 0, true);
  if (n > 0 && now != b.index) b.slot ^= 1;
  b.index = now;
  wait_all(b.in_flight[b.slot], loc);  // input: its fetch; output: the buffer's old write-back
  if (op.is_output || n + 1 == steps) return;
  GridPoint next = op.block_at(n + 1);
  if (next != now) b.in_flight[b.slot ^ 1] = op.start(next, b.slot ^ 1, true);
}

// After the body of step n: an output block the next step leaves goes back
// to HBM, then the write-back started after step n-1 is waited. This is
// Pallas's TPU schedule (jax/_src/pallas/mosaic/pipeline.py, emit_pipeline's
// loop_body: copy_in, wait_in, body, copy_out, wait_out; wait_out waits the
// previous step's copy_out, "we always immediately wait_out on the iteration
// after the copy_out"). So a write-back is in flight with the prefetches of
// the next two steps only; the prefetch issued at step n+2 reads HBM after it.
void after_body(const PipelineOperand& op, Buffers& b, std::size_t n, std::size_t steps,
                std::source_location loc) {
  if (!op.is_output) return;
  if (n + 1 == steps || op.block_at(n + 1) != b.index)
    b.in_flight[b.slot] = op.start(b.index, b.slot, false);
  wait_all(b.in_flight[b.slot ^ 1], loc);
}
}  // namespace

std::vector<Place> strided_runs(const Place& array, const std::vector<std::int64_t>& elems) {
  std::vector<Place> out;
  std::size_t i = 0;
  while (i < elems.size()) {  // one contiguous run [i, j)
    std::size_t j = i + 1;
    while (j < elems.size() && elems[j] == elems[j - 1] + 1) ++j;
    const std::size_t run = j - i, first = array.first + static_cast<std::size_t>(elems[i]);
    Place* last = out.empty() ? nullptr : &out.back();
    const bool joins = last && last->run_size() == run &&
                       first > last->first &&
                       (last->runs() == 1 ? first - last->first >= run
                                          : first == last->run_first(last->runs()));
    if (joins) {
      if (last->runs() == 1) last->stride = first - last->first;
      last->run = run;
      last->count += run;
    } else {
      out.push_back(Place{array.region, first, run});
    }
    i = j;
  }
  return out;
}

std::vector<GridPoint> grid_points(const GridPoint& grid, const std::vector<std::string>& semantics,
                                   std::uint32_t core, std::uint32_t cores) {
  const std::size_t split = split_dimension(grid, semantics, cores);
  if (cores > 1 && split == grid.size() && core > 0) return {};  // no parallel dim: core 0 only
  std::int64_t total = 1;
  for (auto g : grid) total *= g;
  std::vector<GridPoint> out;
  for (std::int64_t flat = 0; flat < total; ++flat) {
    GridPoint pt = point_at(grid, flat);
    if (split < grid.size()) {
      std::int64_t per = (grid[split] + cores - 1) / cores;
      if (pt[split] / per != core) continue;
    }
    out.push_back(std::move(pt));
  }
  return out;
}

BlockLayout block_layout(const GridPoint& shape,
                         const std::vector<std::optional<std::int64_t>>& block,
                         const GridPoint& index, const std::string& what,
                         std::source_location loc) {
  if (block.size() != shape.size() || index.size() != shape.size())
    throw ModelError(fmt::format("{}: an array of rank {} needs a block shape and a block index "
                                 "of rank {} (got {} and {})",
                                 what, shape.size(), shape.size(), block.size(), index.size()),
                     loc);
  auto start_of = [&](std::size_t d) { return block[d] ? index[d] * *block[d] : index[d]; };
  for (std::size_t d = 0; d < shape.size(); ++d) {
    const std::int64_t size = block[d].value_or(1), start = start_of(d);
    if (start < 0 || start >= shape[d])
      throw ModelError(fmt::format("block {} of {} is outside the array (dimension {}, size {})",
                                   start / std::max<std::int64_t>(size, 1), what, d, shape[d]),
                       loc);
  }
  BlockLayout out{{0}, {0}};
  std::int64_t stride = 1, block_stride = 1;
  for (std::size_t d = shape.size(); d-- > 0;) {
    const std::int64_t size = block[d].value_or(1), start = start_of(d);
    const std::int64_t inside = std::min(size, shape[d] - start);  // clipped at the array's end
    BlockLayout next;
    for (std::int64_t i = 0; i < inside; ++i)  // dimension d outside the ones already laid out
      for (std::size_t k = 0; k < out.array.size(); ++k) {
        next.array.push_back((start + i) * stride + out.array[k]);
        next.buffer.push_back(i * block_stride + out.buffer[k]);
      }
    out = std::move(next);
    stride *= shape[d];
    block_stride *= size;
  }
  return out;
}

std::vector<std::int64_t> block_elements(const GridPoint& shape,
                                         const std::vector<std::optional<std::int64_t>>& block,
                                         const GridPoint& index, const std::string& what,
                                         std::source_location loc) {
  return block_layout(shape, block, index, what, loc).array;
}

Copies start_block_copies(const Place& array, const std::vector<std::int64_t>& elems,
                          const Place& buffer, const Sem& sem, bool in, std::source_location loc) {
  Copies copies;
  std::size_t pos = buffer.first;
  for (const Place& runs : strided_runs(array, elems)) {
    Place v{buffer.region, pos, runs.count};
    copies.push_back(in ? make_copy(runs, v, sem, loc) : make_copy(v, runs, sem, loc));
    copies.back().start(loc);
    pos += runs.count;
  }
  return copies;
}

Copies start_block_copies(const Place& array, const BlockLayout& block, const Place& buffer,
                          const Sem& sem, bool in, std::source_location loc) {
  const auto n = block.array.size();
  bool dense = true;  // the buffer is filled front to back: strided DMAs as for a whole block
  for (std::size_t i = 0; i < n && dense; ++i) dense = block.buffer[i] == static_cast<std::int64_t>(i);
  if (dense) return start_block_copies(array, block.array, buffer, sem, in, loc);
  Copies copies;
  for (std::size_t i = 0, j; i < n; i = j) {  // one DMA per run contiguous on both sides
    for (j = i + 1; j < n && block.array[j] == block.array[j - 1] + 1 &&
                    block.buffer[j] == block.buffer[j - 1] + 1;)
      ++j;
    Place a{array.region, array.first + static_cast<std::size_t>(block.array[i]), j - i};
    Place b{buffer.region, buffer.first + static_cast<std::size_t>(block.buffer[i]), j - i};
    copies.push_back(in ? make_copy(a, b, sem, loc) : make_copy(b, a, sem, loc));
    copies.back().start(loc);
  }
  return copies;
}

void wait_all(Copies& copies, std::source_location loc) {
  for (auto& c : copies) c.wait(loc);
  copies.clear();
}

void run_pipeline(std::size_t steps, const std::vector<PipelineOperand>& operands,
                  const std::function<void(std::size_t, const std::vector<int>&)>& body,
                  std::source_location loc) {
  std::vector<Buffers> st(operands.size());
  std::vector<int> slots(operands.size(), 0);
  for (std::size_t n = 0; n < steps; ++n) {
    for (std::size_t k = 0; k < operands.size(); ++k) {
      before_body(operands[k], st[k], n, steps, loc);
      slots[k] = st[k].slot;
    }
    body(n, slots);
    for (std::size_t k = 0; k < operands.size(); ++k) after_body(operands[k], st[k], n, steps, loc);
  }
  for (auto& b : st)
    for (auto& c : b.in_flight) wait_all(c, loc);
}

}  // namespace heddle::tpu
