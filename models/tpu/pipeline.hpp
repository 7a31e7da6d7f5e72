// Pallas's TPU software pipeline, shared by the jaxpr interpreter's
// pallas_call (models/pallas/grid.cpp) and the C++ vocabulary
// (pallas_call and emit_pipeline, models/tpu/blockspec.hpp): which grid
// points a core runs, the DMAs that move one block, and the double-buffered
// loop that fetches block n+1 while the body works on block n.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <source_location>
#include <string>
#include <vector>

#include "models/tpu/dma.hpp"

namespace heddle::tpu {

/// A point of a grid, a block index or an array shape: one entry per dimension.
using GridPoint = std::vector<std::int64_t>;

/// The grid points `core` of `cores` runs, in Pallas's order (row-major,
/// the last dimension fastest). With several cores the first dimension
/// whose semantics contains "parallel" is split into one contiguous share
/// per core, as Mosaic does on a megacore chip; with none, core 0 runs the
/// whole grid. A dimension without semantics is "arbitrary".
std::vector<GridPoint> grid_points(const GridPoint& grid, const std::vector<std::string>& semantics,
                                   std::uint32_t core, std::uint32_t cores);

/// Row-major element offsets of block `index` of an array of `shape`: a
/// dimension of block size b covers [index*b, index*b + b), a squeezed one
/// (nullopt) the one element `index`. ModelError naming `what` when the
/// block starts outside the array; an edge block is clipped (block_layout).
std::vector<std::int64_t> block_elements(const GridPoint& shape,
                                         const std::vector<std::optional<std::int64_t>>& block,
                                         const GridPoint& index, const std::string& what,
                                         std::source_location loc);

/// The part of a block inside its array: each element's row-major offset
/// in the array and its position in the block's buffer (row-major over the
/// whole block shape). An edge block that sticks out of the array (a block
/// dimension larger than what is left, paged_attention's 128-wide block of
/// a 1-wide output) keeps its in-bounds elements only: Mosaic moves those.
struct BlockLayout {
  std::vector<std::int64_t> array;
  std::vector<std::int64_t> buffer;
};

/// block_elements with the buffer positions, clipping an edge block to the
/// array; ModelError when the block starts outside the array.
BlockLayout block_layout(const GridPoint& shape,
                         const std::vector<std::optional<std::int64_t>>& block,
                         const GridPoint& index, const std::string& what,
                         std::source_location loc);

/// Elements `elems` (offsets from array.first, ascending) of `array` as
/// strided places: each maximal sequence of equal, evenly spaced
/// contiguous runs is one place, as Mosaic moves a block with one strided
/// DMA descriptor. A 2-D block of a 2-D array is one place.
std::vector<Place> strided_runs(const Place& array, const std::vector<std::int64_t>& elems);

/// The started DMAs of one block copy.
using Copies = std::vector<AsyncCopy>;

/// Starts the DMAs that move elements `elems` of `array` (offsets from its
/// first element) to (in) or from consecutive elements of `buffer`, all
/// signalling `sem`: one (strided) DMA per place of strided_runs.
Copies start_block_copies(const Place& array, const std::vector<std::int64_t>& elems,
                          const Place& buffer, const Sem& sem, bool in, std::source_location loc);

/// start_block_copies of a block's layout: a clipped edge block moves each
/// run that is contiguous in both the array and the buffer with one DMA.
Copies start_block_copies(const Place& array, const BlockLayout& block, const Place& buffer,
                          const Sem& sem, bool in, std::source_location loc);

/// Waits every copy of `copies` in order, then empties it.
void wait_all(Copies& copies, std::source_location loc);

/// One blocked operand of a pipeline, as the loop sees it.
struct PipelineOperand {
  bool is_output = false;
  /// The operand's block index at step n.
  std::function<GridPoint(std::size_t n)> block_at;
  /// Starts the DMAs of `block` into (in) or out of buffer `slot` (0 or 1).
  std::function<Copies(const GridPoint& block, int slot, bool in)> start;
};

/// Runs steps 0..steps-1 of Pallas's TPU pipeline: per step, wait for each
/// input's block and prefetch the next one into the other buffer, run
/// `body(n, slots)` (slots[k]: the buffer operand k's block is in), then
/// write back each output block that the next step leaves and wait for the
/// write-back of step n-1 (emit_pipeline's copy_out, wait_out). A block whose
/// index does not change between consecutive steps stays in its buffer:
/// no copy. Every copy is waited before it returns.
void run_pipeline(std::size_t steps, const std::vector<PipelineOperand>& operands,
                  const std::function<void(std::size_t, const std::vector<int>&)>& body,
                  std::source_location loc);

}  // namespace heddle::tpu
