// Pallas's blocked grids for C++ TPU models: pl.BlockSpec, a pallas_call
// grid with dimension semantics, and pltpu.emit_pipeline. Each operand
// gets two VMEM buffers and two DMA semaphores at setup; the body works on
// one buffer while the DMAs fill or drain the other, in Pallas's order
// (models/tpu/pipeline.hpp, the loop the jaxpr interpreter runs too).
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <source_location>
#include <string>
#include <utility>
#include <vector>

#include "models/tpu/memory.hpp"
#include "models/tpu/pipeline.hpp"
#include "models/tpu/semaphore.hpp"

namespace heddle::tpu {

/// pl.BlockSpec(block_shape, index_map): index_map takes a grid point to
/// one block index per array dimension; a nullopt block dimension is
/// squeezed (pl.Squeezed / None), its index an element index.
struct BlockSpec {
  std::vector<std::optional<std::int64_t>> block_shape;
  std::function<GridPoint(const GridPoint&)> index_map;
};

/// One operand of a blocked call: the name of its VMEM buffers, the shape
/// of its HBM array (row-major over the ref's elements) and its BlockSpec.
struct ArraySpec {
  std::string name;
  GridPoint shape;
  BlockSpec block;
};

/// The grid and pltpu.CompilerParams(dimension_semantics=...): "parallel"
/// or "arbitrary" per dimension (empty: all "arbitrary").
struct GridSpec {
  GridPoint grid;
  std::vector<std::string> dimension_semantics;
};

/// Validates `s` at setup (index maps are checked where they are
/// evaluated, per grid point); returns the elements of one block.
std::size_t check_array_spec(const ArraySpec& s, std::source_location loc);
/// Validates the grid and its dimension semantics at setup.
void check_grid_spec(const GridSpec& g, std::source_location loc);
/// ModelError unless HBM refs of `sizes` elements match the specs' shapes.
void check_operands(const std::vector<ArraySpec>& specs, const std::vector<std::size_t>& sizes,
                    const char* what, std::source_location loc);

/// A blocked call, made at setup (it allocates the buffers and semaphores)
/// and run by a kernel thread with the HBM refs of its inputs and outputs.
template <class T>
class BlockedCall {
 public:
  /// The body: the grid point, then each input's and output's VMEM block.
  using Body = std::function<void(const GridPoint&, const std::vector<Ref<T>>& ins,
                                  const std::vector<Ref<T>>& outs)>;

  BlockedCall(Body body, GridSpec grid, std::vector<ArraySpec> ins, std::vector<ArraySpec> outs,
              bool split_cores, std::source_location loc)
      : body_(std::move(body)), grid_(std::move(grid)), split_(split_cores), loc_(loc) {
    check_grid_spec(grid_, loc);
    for (auto& s : ins) add(std::move(s), false);
    for (auto& s : outs) add(std::move(s), true);
  }

  /// Runs the body over this thread's grid points on HBM refs `ins`, `outs`.
  void operator()(const std::vector<Ref<T>>& ins, const std::vector<Ref<T>>& outs,
                  std::source_location loc = std::source_location::current()) const {
    check_refs(ins, outs, loc);
    auto points = split_ ? grid_points(grid_.grid, grid_.dimension_semantics, core_id(loc),
                                       Mesh::current().cores())
                         : grid_points(grid_.grid, {}, 0, 1);
    std::vector<PipelineOperand> ops;
    for (std::size_t k = 0; k < operands_.size(); ++k)
      ops.push_back(operand(operands_[k], k < ins.size() ? ins[k] : outs[k - ins.size()], points, loc));
    run_pipeline(points.size(), ops, [&](std::size_t n, const std::vector<int>& slots) {
      std::vector<Ref<T>> bin, bout;
      for (std::size_t k = 0; k < operands_.size(); ++k)
        (operands_[k].is_output ? bout : bin).push_back(block_ref(operands_[k], slots[k]));
      body_(points[n], bin, bout);
    }, loc);
  }

 private:
  struct Blocked {  // one operand's spec, its two VMEM buffers and their semaphores
    ArraySpec spec;
    bool is_output = false;
    std::size_t block_elems = 0;
    Ref<T> buffers;
    std::vector<Sem> sems;
  };

  // Allocates the operand's buffers ("name") and semaphores ("name.copy_sem[i]").
  void add(ArraySpec s, bool out) {
    Blocked b;
    b.block_elems = check_array_spec(s, loc_);
    b.buffers = vmem<T>(s.name, 2 * b.block_elems);
    b.sems = dma_semaphores(s.name + ".copy_sem", 2);
    b.spec = std::move(s);
    b.is_output = out;
    operands_.push_back(std::move(b));
  }

  // Buffer `slot` of operand `s`, the block the body sees.
  Ref<T> block_ref(const Blocked& s, int slot) const {
    return s.buffers.slice(static_cast<std::size_t>(slot) * s.block_elems, s.block_elems, loc_);
  }

  // The pipeline's view of operand `s` on HBM ref `array` (captured by value).
  PipelineOperand operand(const Blocked& s, Ref<T> array, const std::vector<GridPoint>& points,
                          std::source_location loc) const {
    PipelineOperand op;
    op.is_output = s.is_output;
    op.block_at = [&s, &points](std::size_t n) { return s.spec.block.index_map(points[n]); };
    op.start = [this, &s, array, loc](const GridPoint& b, int slot, bool in) {
      auto elems = block_layout(s.spec.shape, s.spec.block.block_shape, b, s.spec.name, loc);
      return start_block_copies(array.place(loc), elems, block_ref(s, slot).place(loc),
                                s.sems[static_cast<std::size_t>(slot)], in, loc);
    };
    return op;
  }

  // ModelError unless the refs match the specs in number and size.
  void check_refs(const std::vector<Ref<T>>& ins, const std::vector<Ref<T>>& outs,
                  std::source_location loc) const {
    std::vector<ArraySpec> in_specs, out_specs;
    for (const auto& s : operands_) (s.is_output ? out_specs : in_specs).push_back(s.spec);
    std::vector<std::size_t> in_sizes, out_sizes;
    for (const auto& r : ins) in_sizes.push_back(r.size());
    for (const auto& r : outs) out_sizes.push_back(r.size());
    check_operands(in_specs, in_sizes, "inputs", loc);
    check_operands(out_specs, out_sizes, "outputs", loc);
  }

  Body body_;
  GridSpec grid_;
  bool split_;
  std::source_location loc_;
  std::vector<Blocked> operands_;  // inputs, then outputs
};

/// pl.pallas_call(body, grid, in_specs, out_specs) with
/// dimension_semantics: make it at setup; each core's kernel thread calls
/// it with the HBM refs and runs its share of the grid (grid_points).
template <class T>
BlockedCall<T> pallas_call(typename BlockedCall<T>::Body body, GridSpec grid,
                           std::vector<ArraySpec> in_specs, std::vector<ArraySpec> out_specs,
                           std::source_location loc = std::source_location::current()) {
  return BlockedCall<T>(std::move(body), std::move(grid), std::move(in_specs),
                        std::move(out_specs), true, loc);
}

/// pltpu.emit_pipeline(body, grid, in_specs, out_specs): make it at setup;
/// a kernel thread calls it with HBM refs (slices of them too) and runs the
/// whole grid itself, double-buffered, all copies waited when it returns.
template <class T>
BlockedCall<T> emit_pipeline(typename BlockedCall<T>::Body body, GridPoint grid,
                             std::vector<ArraySpec> in_specs, std::vector<ArraySpec> out_specs,
                             std::source_location loc = std::source_location::current()) {
  return BlockedCall<T>(std::move(body), GridSpec{std::move(grid), {}}, std::move(in_specs),
                        std::move(out_specs), false, loc);
}

}  // namespace heddle::tpu
