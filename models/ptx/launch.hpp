// A PTX kernel launch: grid and block shape, kernel arguments (buffers the
// user names and sizes, tensormaps over them, scalars), and the state one
// execution of it shares between its warps (memory map, mbarriers).
#pragma once
#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "models/gpu/gpu.hpp"
#include "models/ptx/program.hpp"

namespace heddle::ptx {

/// One kernel argument as given on the command line (--arg name=spec).
struct ArgSpec {
  enum class Kind { buffer, tensormap, scalar, bytes };
  std::string name;
  Kind kind = Kind::scalar;
  std::uint64_t bytes = 0;          // buffer size
  std::uint64_t value = 0;          // scalar value
  int scalar_bytes = 8;             // scalar: 4 for u32/i32, 8 for u64/i64
  std::vector<std::uint8_t> data;   // bytes: a parameter's contents (a struct by value)
  std::string tensor;               // tensormap: the buffer it describes
  std::uint32_t shape[5] = {1, 1, 1, 1, 1};  // tensormap: tensor shape in elements
  std::uint32_t box[5] = {1, 1, 1, 1, 1};    // tensormap: box shape in elements
  std::uint32_t rank = 2;                    // tensormap: dimensions (shape=WxHxD.. gives them)
  std::uint32_t elem = 4;           // tensormap: element bytes
};

/// Parses "name=buffer:BYTES", "name=tensormap:BUF,shape=WxH[xD..],box=WxH[xD..][,elem=E]"
/// (1 to 5 dimensions), "name=u32:V" (also i32, u64, i64), "name=bytes:HEX" (a
/// parameter's bytes, e.g. a struct by value); UsageError says the accepted forms.
ArgSpec parse_arg(const std::string& text);
/// Checks `args` against the parameters of `p` before any execution: one
/// per parameter, named as it (or as nvcc's generated name allows), values
/// that fit its type, tensormaps over buffers large enough; UsageError
/// naming the parameter and its PTX line otherwise.
void check_args(const Program& p, const std::vector<ArgSpec>& args);
/// Parses --smem BYTES: dynamic shared memory per CTA, 0 to 1 MiB.
std::uint32_t parse_smem(const std::string& text);
/// Parses "X[,Y[,Z]]" into three dimensions.
std::array<int, 3> parse_dims(const std::string& text, const char* what);

/// What the user gave: the program and its launch.
struct Launch {
  std::shared_ptr<const Program> program;
  std::array<int, 3> grid{1, 1, 1}, block{32, 1, 1};
  std::array<int, 3> cluster{1, 1, 1};  // CTAs per cluster (set by apply_cluster)
  bool explicit_cluster = false;        // launched with cluster dimensions (%is_explicit_cluster)
  std::vector<ArgSpec> args;
  /// A launch from a running program (models/cuda): the bytes the host passed
  /// for each parameter, in order (then `args` is empty). A parameter wider
  /// than 8 bytes (a __grid_constant__ CUtensorMap, a struct) also gets a
  /// global copy, its address for `mov`/`cvta.param`.
  std::vector<std::vector<std::uint8_t>> raw;
  /// The grid's CTAs this launch runs: [first_cta, first_cta + ctas()) of
  /// `grid` when `batch` is set (a program's large launch, run in parts).
  int first_cta = 0, batch = 0;
  int threads() const { return block[0] * block[1] * block[2]; }
  int warps() const { return (threads() + 31) / 32; }
  int ctas() const { return batch > 0 ? batch : grid[0] * grid[1] * grid[2]; }
  int cluster_size() const { return cluster[0] * cluster[1] * cluster[2]; }
};

/// Sets the cluster shape of `launch` (its program and grid set first) from
/// the launch's request (`--cluster`, cudaLaunchAttributeClusterDimension;
/// nullopt: none) and the kernel's .reqnctapercluster/.explicitcluster (PTX
/// ISA 11.5); UsageError when they disagree, a dimension does not divide the
/// grid's, or a cluster has more than 16 CTAs.
void apply_cluster(Launch& launch, std::optional<std::array<int, 3>> requested);
/// The heddle CTA index (clusters contiguous, models/gpu) of a CTA's cluster
/// and its rank in it, and back: CUDA's %ctaid of heddle CTA `cta`.
std::array<int, 3> ctaid_of(const Launch& launch, int cta);

/// One execution's state of a launch, shared by its warps.
class LaunchState {
 public:
  /// Allocates buffers, tensormaps, shared memory and starts one heddle thread per warp.
  explicit LaunchState(const Launch& launch);
  const Launch& launch() const noexcept { return launch_; }
  const Program& program() const noexcept { return *launch_.program; }
  /// The 8-byte value of scalar or pointer parameter `i` (ld.param).
  const std::vector<std::uint8_t>& param(int i) const { return params_.at(i); }
  /// The address of parameter `i` (mov of a param symbol, cvta.param): a
  /// tensormap parameter (`__grid_constant__ CUtensorMap`) lives in global
  /// memory; ModelError for other parameters.
  std::uint64_t param_address(int i) const;
  /// The address a variable's name stands for (mov, an address operand):
  /// shared variables their offset in the shared window, .global/.const
  /// ones their global address, parameters param_address().
  std::uint64_t symbol_address(int symbol) const;
  /// The region and byte offset of `bytes` at address `addr` in `space`
  /// for a warp of CTA `cta`; ModelError naming the instruction when unmapped.
  std::pair<Region*, std::size_t> resolve(Space space, std::uint64_t addr, std::size_t bytes,
                                          int cta, const Instr& in) const;
  /// The CTA and shared-window offset that shared address `addr` names for
  /// a warp of CTA `cta` (a shared::cluster address names a peer, PTX ISA
  /// 5.1.7); ModelError for a rank outside the cluster or a peer's address
  /// used through .shared::cta.
  std::pair<int, std::uint32_t> shared_target(std::uint64_t addr, int cta, const Instr& in) const;
  /// The mbarrier at shared address `addr` of CTA `cta` (nullptr before init).
  gpu::Mbarrier*& mbarrier(int cta, std::uint32_t addr) { return mbarriers_[{cta, addr}]; }
  /// A name for shared address `addr` ("full[1]").
  std::string shared_name(int cta, std::uint32_t addr) const;
  /// The clock of strong location (region, offset) for releases from CTA
  /// `domain`, or at .gpu/.sys scope for domain -1 (memory_model.cpp).
  SyncClock& location_clock(const Region* r, std::size_t offset, int domain) {
    return locations_[{r, offset, domain}];
  }
  /// Records each buffer's contents as the final state.
  void observe_buffers() const;

 private:
  /// Takes a raw launch's parameter bytes (Launch::raw).
  void adopt_raw();

  const Launch& launch_;
  std::vector<std::vector<std::uint8_t>> params_;
  std::map<std::string, gpu::View<std::uint8_t>> buffers_;
  std::vector<gpu::Shared<std::uint8_t>> shared_;  // by symbol index (empty views for others)
  std::vector<std::uint64_t> global_at_;           // by symbol index: .global/.const addresses
  std::vector<std::uint64_t> param_at_;            // by parameter: a by-value struct's address
  std::vector<gpu::View<std::uint8_t>> variables_; // the .global variables, observed at exit
  std::map<std::pair<int, std::uint32_t>, gpu::Mbarrier*> mbarriers_;
  std::map<std::tuple<const Region*, std::size_t, int>, SyncClock> locations_;
  std::vector<std::uint64_t> raw_addresses_;  // raw launches: each wide parameter's copy (0: none)
};

/// Runs warp `warp` of the caller's CTA (the body of one heddle thread).
void run_warp(LaunchState& state, const gpu::ThreadInfo& thread);

}  // namespace heddle::ptx
