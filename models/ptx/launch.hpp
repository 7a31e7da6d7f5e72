// A PTX kernel launch: grid and block shape, kernel arguments (buffers the
// user names and sizes, tensormaps over them, scalars), and the state one
// execution of it shares between its warps (memory map, mbarriers).
#pragma once
#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "models/gpu/gpu.hpp"
#include "models/ptx/program.hpp"

namespace heddle::ptx {

/// One kernel argument as given on the command line (--arg name=spec).
struct ArgSpec {
  enum class Kind { buffer, tensormap, scalar };
  std::string name;
  Kind kind = Kind::scalar;
  std::uint64_t bytes = 0;          // buffer size
  std::uint64_t value = 0;          // scalar value
  std::string tensor;               // tensormap: the buffer it describes
  std::uint32_t shape[2] = {1, 1};  // tensormap: tensor shape in elements
  std::uint32_t box[2] = {1, 1};    // tensormap: box shape in elements
  std::uint32_t elem = 4;           // tensormap: element bytes
};

/// Parses "name=buffer:BYTES", "name=tensormap:BUF,shape=WxH,box=WxH[,elem=E]",
/// "name=u32:V" (also i32, u64, i64); UsageError says the accepted forms.
ArgSpec parse_arg(const std::string& text);
/// Parses "X[,Y[,Z]]" into three dimensions.
std::array<int, 3> parse_dims(const std::string& text, const char* what);

/// Writes heddle's tensormap encoding (128 bytes: models/gpu TmaDesc, and the
/// box shape in elements at byte 64) of a `shape` tensor at `address` cut in `box`es.
void encode_tensormap(std::uint8_t* out, std::uint64_t address, const std::uint32_t shape[2],
                      const std::uint32_t box[2], std::uint32_t elem);

/// What the user gave: the program and its launch.
struct Launch {
  std::shared_ptr<const Program> program;
  std::array<int, 3> grid{1, 1, 1}, block{32, 1, 1};
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
};

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
  /// The region and byte offset of `bytes` at address `addr` in `space`
  /// for a warp of CTA `cta`; ModelError naming the instruction when unmapped.
  std::pair<Region*, std::size_t> resolve(Space space, std::uint64_t addr, std::size_t bytes,
                                          int cta, const Instr& in) const;
  /// The mbarrier at shared address `addr` of CTA `cta` (nullptr before init).
  gpu::Mbarrier*& mbarrier(int cta, std::uint32_t addr) { return mbarriers_[{cta, addr}]; }
  /// A name for shared address `addr` ("full[1]").
  std::string shared_name(int cta, std::uint32_t addr) const;
  /// The clock of the atomic location (region, offset) (atom/red .release/.acquire).
  SyncClock& atomic_clock(const Region* r, std::size_t offset) { return atomics_[{r, offset}]; }
  /// Records each buffer's contents as the final state.
  void observe_buffers() const;

 private:
  /// Takes a raw launch's parameter bytes (Launch::raw).
  void adopt_raw();

  const Launch& launch_;
  std::vector<std::vector<std::uint8_t>> params_;
  std::map<std::string, gpu::View<std::uint8_t>> buffers_;
  std::vector<gpu::Shared<std::uint8_t>> shared_;  // by symbol index (empty views for others)
  std::map<std::pair<int, std::uint32_t>, gpu::Mbarrier*> mbarriers_;
  std::map<std::pair<const Region*, std::size_t>, SyncClock> atomics_;
  std::vector<std::uint64_t> raw_addresses_;  // raw launches: each wide parameter's copy (0: none)
};

/// Runs warp `warp` of the caller's CTA (the body of one heddle thread).
void run_warp(LaunchState& state, const gpu::ThreadInfo& thread);

}  // namespace heddle::ptx
