// The pallas_call around the kernel body: operands in HBM, blocks in two
// VMEM or SMEM buffers each, scratch, and the grid loop that copies blocks
// in and out with DMAs, double-buffered as Pallas's TPU pipeline does.
#pragma once
#include <map>
#include <memory>
#include <vector>

#include "models/pallas/interp.hpp"
#include "models/pallas/program.hpp"

namespace heddle::pallas {

/// One pallas_call input or output as laid out for an execution.
struct Operand {
  tpu::Allocation* hbm = nullptr;     // the whole array, per device
  DType dtype = DType::i32;
  Shape array_shape;
  const BlockSpec* block = nullptr;   // blocked into VMEM/SMEM; nullptr: the kernel gets hbm
  RefBinding kernel_ref;              // the kernel's parameter (blocked: buffer 0 of 2)
  std::int64_t block_elems = 0;       // blocked: elements per buffer
  std::vector<tpu::Sem> sems;         // blocked: the DMA semaphore of each buffer
  bool is_output = false;
};

/// Everything one execution of the exported kernel allocated at setup.
struct Launch {
  std::shared_ptr<const Program> program;
  std::vector<Operand> operands;          // index operands and inputs, then outputs
  std::vector<RefBinding> scratch;        // scratch operands, in order
  std::map<const Eqn*, std::vector<RefBinding>> scoped;  // run_scoped allocations
  bool clip_out_of_bounds = false;        // --param out_of_bounds=clip (ThreadContext)
};

/// Allocates operands, blocks, scratch and run_scoped buffers, and writes
/// the inputs' values (call in the kernel's setup, after making the mesh).
std::shared_ptr<Launch> prepare(std::shared_ptr<const Program> program);

/// The body of the kernel thread on (device, core): its share of the grid.
void run_core(const Launch& launch);

}  // namespace heddle::pallas
