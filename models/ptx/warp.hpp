// One warp of a PTX kernel as one heddle thread: 32 lanes interpreted
// together, each with its own registers and program counter.
//
// Divergence and reconvergence (the rule, PTX ISA 9.7.8 leaves it to the
// hardware): at each step the warp runs the instruction of its live lanes'
// smallest program counter, for every lane there ("minimum PC first",
// the thread-frontier rule of Diamos et al., MICRO 2011, section 4). Lanes
// that branched forward wait until the others reach them, so the two sides
// of a divergent if run one after the other and the warp reconverges at the
// first instruction both sides reach in layout order (the post-dominator for
// the forward-structured code nvcc emits); a lane leaving a loop waits for
// the lanes still in it. Lanes never wait for a lane further ahead, so code
// where one lane spins on work another lane of the same warp must do first
// is outside this rule (it deadlocks here).
#pragma once
#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include "models/gpu/reduce.hpp"
#include "models/ptx/launch.hpp"
#include "models/ptx/narrow_float.hpp"

namespace heddle::ptx {

class Warp {
 public:
  Warp(LaunchState& state, const gpu::ThreadInfo& thread);
  ~Warp();
  Warp(const Warp&) = delete;
  Warp& operator=(const Warp&) = delete;
  /// Interprets the kernel until every lane has exited.
  void run();
  /// The lanes that have not exited.
  std::uint32_t live() const noexcept { return live_; }

  /// The value of `a` for `lane` as type `t` (registers, immediates,
  /// special registers, shared variables' addresses).
  std::uint64_t value(const Arg& a, int lane, const Type& t) const;
  /// Writes `v` (truncated to `t`) to register operand `a` of `lane`; sinks ignore it.
  void set(const Arg& a, int lane, std::uint64_t v, const Type& t);
  /// The address operand `a` for `lane`: base register or variable plus offset.
  std::uint64_t address(const Arg& a, int lane) const;
  /// The region and offset `a` names for `lane` in state space `space`.
  std::pair<Region*, std::size_t> memory(const Instr& in, const Arg& a, int lane, Space space,
                                         std::size_t bytes) const;

  LaunchState& state;
  const gpu::ThreadInfo& thread;
  /// The warp's cp.async-groups (Ampere): uncommitted copies, then the
  /// committed groups oldest first (cp_async.cpp).
  std::vector<gpu::BulkOp*> cp_uncommitted;
  std::vector<std::vector<gpu::BulkOp*>> cp_groups;
  std::uint32_t cp_issued = 0;  // copies issued so far (their names)
  /// A fence.mbarrier_init.release.cluster since the warp's last
  /// barrier.cluster.arrive: the next arrive releases (cluster.cpp).
  bool mbarrier_init_fenced = false;
  /// The warp's wgmma.mma_async in flight (wgmma.cpp): their accumulator
  /// registers, which the warp may not touch until a wait_group retires them.
  struct Wgmma {
    /// What the mmas compute into, by register and lane; the warp's
    /// registers get it at the wait_group (it outlives the warp).
    std::shared_ptr<std::vector<std::uint64_t>> shadow;
    std::vector<std::uint32_t> last_op;  // per register: the last mma writing it (1-based)
    std::vector<int> last_line;          // per register: that mma's PTX line
    std::uint32_t issued = 0, retired = 0;
    std::vector<std::uint32_t> group_ends;  // committed groups, oldest first: their last mma
  } wgmma;

  /// The memory model's state of the warp (memory_model.cpp): the clock its
  /// last fence released (relaxed stores after it publish it), what its
  /// relaxed loads read since (the next fence acquires it), and the last
  /// trip of the spin loop it is in: the head's index, lanes and values.
  struct Ordering {
    SyncClock fence_release, pending_acquire;
    bool fenced = false;
    int spin_pc = -1;
    std::uint32_t spin_exec = 0;
    std::array<std::uint64_t, 32> spin_value{};
  } order;

  /// A lane's call stack and local memory (calls.cpp): the frames of the
  /// functions it is in, the running one's base and index in Program::funcs.
  struct Lane {
    struct Frame {
      int ret_pc;          // where the caller resumes
      std::uint32_t base;  // the caller's frame
      int func;            // the caller
      const Instr* call;   // the call, whose result operands ret fills
      std::vector<std::uint64_t> saved;  // the callee's registers before the call (recursion)
    };
    std::vector<Frame> calls;
    std::uint32_t base = 0;
    int func = 0;
    std::vector<std::byte> local;
  };
  std::array<Lane, 32> lanes;
  /// The program counter of `lane` (call and ret move it).
  int& pc(int lane) { return pc_[static_cast<std::size_t>(lane)]; }

  /// Warp instructions this warp has run (each a step of its clocks).
  std::uint64_t executed() const noexcept { return executed_; }
  /// Register `reg` of `lane`, for the operations that keep state outside the ALU.
  std::uint64_t& reg(int r, int lane) { return regs_[r * 32 + lane]; }

 private:
  void step(const Instr& in, std::uint32_t exec);
  void alu(const Instr& in, int lane);
  void load_store(const Instr& in, std::uint32_t exec);
  void shuffle(const Instr& in, std::uint32_t exec);
  std::uint64_t special(const Arg& a, int lane) const;

  int warp_ = 0;
  std::uint64_t executed_ = 0;     // warp instructions run: the clock (%clock64, %globaltimer)
  std::uint32_t live_ = 0;         // lanes that have not exited
  std::array<int, 32> pc_{};
  std::vector<std::uint64_t> regs_;  // regs_[reg * 32 + lane]
};

/// Runs a visible (Hopper) operation for the lanes in `exec`; false when
/// `in` is not one (then the ALU runs it). hopper.cpp.
bool run_visible(Warp& w, const Instr& in, std::uint32_t exec);

/// The cluster special registers (%cluster_ctarank, %clusterid.x, ...) of
/// heddle CTA `cta` (PTX ISA 10; cluster.cpp).
std::uint64_t cluster_special(const Launch& launch, int cta, const Arg& a);
/// mapa, barrier.cluster and fence.mbarrier_init for the lanes in `exec` (cluster.cpp).
void run_cluster(Warp& w, const Instr& in, std::uint32_t exec);
/// The non-tensor cp.async.bulk copies, cp.reduce.async.bulk, the bulk
/// prefetches and multicast TMA loads (bulk_copy.cpp).
void run_bulk_copy(Warp& w, const Instr& in, std::uint32_t exec);

/// tensormap.replace.tile of the global address or a shape field (tma.cpp).
void replace_field(Warp& w, const Instr& in, std::uint32_t exec);
/// The reduction a cp.reduce.async.bulk opcode names (bulk_copy.cpp).
gpu::Reduction ptx_reduction(const Instr& in);
/// cp.async.bulk.tensor loads (multicast too), stores, reductions and prefetches (tma.cpp).
void run_tma(Warp& w, const Instr& in, std::uint32_t exec);
/// The CTA and shared-window offset of shared address operand `a` for
/// `lane` (.shared or generic; a shared::cluster address names a peer CTA).
std::pair<int, std::uint32_t> shared_target(const Warp& w, const Instr& in, const Arg& a, int lane);
/// The mbarrier at `addr` of CTA `cta`; ModelError before its init (hopper.cpp).
gpu::Mbarrier& mbarrier_at(Warp& w, const Instr& in, int cta, std::uint32_t addr);
/// The mbarrier that address operand `a` names for `lane`.
gpu::Mbarrier& mbarrier(Warp& w, const Instr& in, const Arg& a, int lane);
/// The 128-byte tensormap at address operand `a` (global, or shared for .shared::cta).
gpu::TensorMap tensormap(Warp& w, const Instr& in, const Arg& a, int lane, Space space);

/// wgmma.fence/mma_async/commit_group/wait_group for the lanes in `exec` (wgmma.cpp).
void run_wgmma(Warp& w, const Instr& in, std::uint32_t exec);
/// ModelError when `in` touches an accumulator register of an mma_async
/// that no wgmma.wait_group has retired (PTX ISA 9.7.15, wgmma.mma_async).
void check_accumulators(const Warp& w, const Instr& in);

/// A strong (.relaxed/.acquire/.release/.volatile) ld or st (memory_model.cpp).
void strong_load_store(Warp& w, const Instr& in, std::uint32_t exec);
/// fence.acq_rel/fence.sc/membar: the fence-fence patterns of PTX ISA 8.8.
void memory_fence(Warp& w, const Instr& in);
/// The release effect of strong write `in` at (r, off): a .release, or a
/// relaxed write after a fence.
void release_at(Warp& w, const Instr& in, const Region* r, std::size_t off);
/// The acquire effect of strong read `in` at (r, off): an .acquire now, or
/// for a relaxed read at the warp's next fence.
void acquire_at(Warp& w, const Instr& in, const Region* r, std::size_t off);

/// call and ret for the lanes in `exec` (calls.cpp).
void call(Warp& w, const Instr& in, std::uint32_t exec);
void ret(Warp& w, const Instr& in, std::uint32_t exec);
/// True when ld/st `in` accesses local memory (.local, a function's .param,
/// or a generic address in the local window) for a lane in `exec`.
bool touches_local(const Warp& w, const Instr& in, std::uint32_t exec);
/// ld/st of the lanes' local memory.
void local_load_store(Warp& w, const Instr& in, std::uint32_t exec);
/// The narrow-float ALU (half.cpp): arithmetic, setp and cvt on .f16/.bf16/fp8.
void narrow_alu(Warp& w, const Instr& in, int lane);
/// setp `in`'s comparison of two floats, the unordered forms and num/nan included (PTX
/// ISA 9.7.7.1).
bool compare_float(const Instr& in, double x, double y);
/// Writes setp's result `t` for `lane`: p (and q) combined with c by .and/.or/.xor (PTX ISA 9.7.7.1).
void write_setp(Warp& w, const Instr& in, int lane, bool t);
/// `x` rounded as `r` says and saturated to integer type `t`; NaN gives 0 (PTX ISA 9.7.9.21).
std::uint64_t float_to_int(double x, const Type& t, Rounding r);
/// Bit operations (bits.cpp): bfi bfe prmt popc clz brev lop3 shf bfind, for one lane.
void bit_op(Warp& w, const Instr& in, int lane);
/// The warp-wide operations (warp_ops.cpp): vote, activemask, ldmatrix,
/// stmatrix, trap, nanosleep and setmaxnreg; false when `in` is none of them.
bool warp_op(Warp& w, const Instr& in, std::uint32_t exec);

/// Warp instructions run by every warp of this process so far (each warp adds
/// its count when it ends; bench/ptx_speed.cpp divides it by the time).
std::uint64_t warp_instructions_run();

/// The low `bytes` bytes of `v` (inline: every operand of the hot path goes through it).
inline std::uint64_t truncate(std::uint64_t v, int bytes) {
  return bytes >= 8 ? v : v & ((std::uint64_t{1} << (8 * bytes)) - 1);
}
/// The low `bytes` bytes of `v`, sign-extended.
inline std::int64_t sign_extend(std::uint64_t v, int bytes) {
  if (bytes >= 8) return static_cast<std::int64_t>(v);
  int shift = 64 - 8 * bytes;
  return static_cast<std::int64_t>(v << shift) >> shift;
}

}  // namespace heddle::ptx
