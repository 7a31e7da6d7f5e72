// The pallas_call around the kernel body: operands in HBM, blocks in VMEM
// or SMEM, scratch, and the grid loop that copies blocks in and out with
// DMAs, as Pallas's TPU pipeline does (in Pallas's grid order).
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
  RefBinding kernel_ref;              // what the kernel's parameter is bound to
  bool is_output = false;
};

/// Everything one execution of the exported kernel allocated at setup.
struct Launch {
  std::shared_ptr<const Program> program;
  std::vector<Operand> operands;          // index operands and inputs, then outputs
  std::vector<RefBinding> scratch;        // scratch operands, in order
  std::map<const Eqn*, std::vector<RefBinding>> scoped;  // run_scoped allocations
  tpu::Sem pipeline_sem;                  // the DMA semaphore of the block copies
};

/// Allocates operands, blocks, scratch and run_scoped buffers, and writes
/// the inputs' values (call in the kernel's setup, after making the mesh).
std::shared_ptr<Launch> prepare(std::shared_ptr<const Program> program);

/// The body of the kernel thread on (device, core): its share of the grid.
void run_core(const Launch& launch);

}  // namespace heddle::pallas
