// The jaxpr interpreter of one kernel thread: an environment of values and
// refs, and a table of primitives (registered by the prims_*.cpp files).
// Refs name heddle memory (tpu::Allocation) or TPU semaphores; reads and
// writes through them go through heddle's race detector.
#pragma once
#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <map>
#include <unordered_map>
#include <variant>
#include <vector>

#include "models/pallas/program.hpp"
#include "models/pallas/value.hpp"
#include "models/tpu/tpu.hpp"

namespace heddle::gpu {
class Mbarrier;
}

namespace heddle::pallas {

/// One dimension of a ref view: its size and stride in elements.
struct Dim {
  std::int64_t size = 1;
  std::int64_t stride = 1;
};

/// A ref as the kernel holds it: memory (an allocation), semaphores or
/// Mosaic GPU barriers, and the view of it (offset and strided dims) that
/// indexing produced.
struct RefBinding {
  enum class Kind { memory, semaphore, barrier };
  Kind kind = Kind::memory;
  tpu::Allocation* alloc = nullptr;  // memory
  DType dtype = DType::i32;          // memory
  std::vector<tpu::Sem> sems;        // semaphores, flat row-major
  std::vector<gpu::Mbarrier*> bars;  // barriers: [instance][i], `per_instance` each
  std::int64_t per_instance = 0;     // barriers of one CTA (or thread)
  bool per_thread = false;           // GPU scratch of one thread, not shared by the CTA
  std::int64_t offset = 0;
  std::vector<Dim> dims;
  std::string name;                  // the kernel's name for it ("x_ref")

  /// The view's shape.
  Shape shape() const;
  /// Flat element indices of the view, row-major.
  std::vector<std::int64_t> elements() const;
};

/// A row-major view of the whole of `n`-element storage of `shape`.
std::vector<Dim> dense_dims(const Shape& shape);

/// What a variable holds.
using Slot = std::variant<Value, RefBinding>;

/// Where the kernel thread is: device, core, grid point.
struct ThreadContext {
  std::uint32_t device = 0;
  std::uint32_t core = 0;
  std::vector<std::int64_t> program_ids;  // one per grid dimension
  const Program* program = nullptr;
  /// run_scoped allocations, made at setup (one per run_scoped equation).
  const std::map<const Eqn*, std::vector<RefBinding>>* scoped = nullptr;
  /// Mosaic GPU: core is the CTA; the thread is the Pallas thread in it.
  bool gpu = false;
  std::uint32_t thread = 0;
  /// Inside a core_map over plgpu.WarpMesh: its axis and this warp's index.
  std::string warp_axis;
  std::int64_t warp = -1;
  /// --param out_of_bounds=clip: an out-of-bounds DMA is a note and moves its
  /// in-bounds part, so exploration goes on to the bugs after it.
  bool clip_out_of_bounds = false;
};

class Interp;
/// A primitive's interpreter: its inputs in, its outputs out.
using PrimFn = std::function<std::vector<Slot>(Interp&, const Eqn&, std::vector<Slot>&)>;

/// Registers a primitive (at static initialization, from prims_*.cpp).
bool register_primitive(const std::string& name, PrimFn fn);
/// True when the interpreter knows `name`.
bool has_primitive(const std::string& name);

/// Evaluates jaxprs for one kernel thread.
class Interp {
 public:
  explicit Interp(ThreadContext ctx) : ctx_(std::move(ctx)) {}

  /// Runs `j` on `args` (its open constvars, then its invars) and returns its outvars.
  std::vector<Slot> eval(const Jaxpr& j, const std::vector<Slot>& args);
  /// The value of an atom written into parameters ({"var": n} or {"lit": x}).
  Slot param_atom(const nlohmann::json& atom, const Eqn& e) const;
  const ThreadContext& context() const noexcept { return ctx_; }

 private:
  Slot read(const Atom& a, const Eqn* e) const;

  ThreadContext ctx_;
  std::unordered_map<std::int64_t, Slot> env_;
};

/// The array held by a slot; ModelError at the equation's line for a ref.
const Value& as_value(const Slot& s, const Eqn& e);
/// The ref held by a slot; ModelError at the equation's line for an array.
const RefBinding& as_ref(const Slot& s, const Eqn& e);
/// Applies a list of indexers (the exporter's JSON) to a ref view. With
/// `clipped` (a DMA descriptor), a slice past its dimension is cut to it and
/// described there ("x_ref[8:16] on dimension 0 of size 8") instead of raising.
RefBinding apply_indexers(Interp& in, const RefBinding& ref, const nlohmann::json& transforms,
                          const Eqn& e, std::string* clipped = nullptr);
/// The heddle region of `alloc` on (device, core).
Region& region_of(const tpu::Allocation& alloc, std::uint32_t device, std::uint32_t core);
/// The region of memory ref `r` the running kernel thread sees (TPU: its
/// device and core; GPU: GMEM is one region, SMEM one per CTA or thread).
Region& region_here(const ThreadContext& c, const RefBinding& r);
/// The (first element, count) of memory view `r`, which a copy moves as one
/// contiguous range in `region` (bounds-checked); ModelError otherwise.
std::pair<std::size_t, std::size_t> contiguous_range(const RefBinding& r, const Region& region,
                                                     const Eqn& e);
/// The place of memory view `r` in `region` that one TPU DMA moves: a
/// contiguous range or a strided box (equal runs, evenly spaced), bounds-
/// checked; ModelError for any other view.
tpu::Place strided_place(const RefBinding& r, Region& region, const Eqn& e);
/// Mosaic GPU axis_index: the coordinate along grid, cluster or thread axes.
std::int64_t gpu_axis_index(const ThreadContext& c, const nlohmann::json& names, const Eqn& e);

}  // namespace heddle::pallas
