// Pallas TPU topology: devices (chips) with cores, one kernel thread per
// (device, core), the DMA completion policy, and the kernel-exit checks.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <source_location>
#include <string>
#include <vector>

#include "checker/heddle.hpp"

namespace heddle::tpu {

class TpuSemaphore;
class Sem;
struct SemFamily;
struct DmaRecord;

/// When started DMAs complete (the three behaviours of the Pallas TPU world).
enum class DmaOrder {
  any,      // every completion order is explored (the hardware's freedom)
  eager,    // each DMA completes inside its start (JAX interpret, "eager")
  on_wait,  // a DMA completes only when a wait needs it, newest first (JAX "on_wait")
};

/// Parses "any" | "eager" | "on_wait"; ModelError for anything else.
DmaOrder parse_dma_order(const std::string& s);
/// The values a kernel's `dma_order` choice parameter accepts.
std::vector<std::string> dma_order_names();

/// The shape of one launch: devices, cores per device, DMA completion policy.
struct MeshConfig {
  std::uint32_t devices = 1;
  std::uint32_t cores = 1;             // cores per device (TensorCores)
  DmaOrder dma_order = DmaOrder::any;
  std::vector<std::uint32_t> shape;    // optional mesh shape; product == devices
};

/// Where a kernel thread runs.
struct CoreCoords {
  std::uint32_t device = 0;
  std::uint32_t core = 0;
};

/// The machine of one execution: its devices and cores, their threads, the
/// allocations and semaphores, every DMA started, and the exit checks.
/// Create it in a kernel's setup with heddle::make<Mesh>(config).
class Mesh {
 public:
  explicit Mesh(MeshConfig config);
  ~Mesh();
  Mesh(const Mesh&) = delete;
  Mesh& operator=(const Mesh&) = delete;

  /// The mesh of the running execution ([heddle bug]-free ModelError if none).
  static Mesh& current();

  const MeshConfig& config() const noexcept { return config_; }
  std::uint32_t devices() const noexcept { return config_.devices; }
  std::uint32_t cores() const noexcept { return config_.cores; }
  DmaOrder dma_order() const noexcept { return config_.dma_order; }

  /// Runs `body` once per (device, core), each as its own kernel thread.
  void launch(std::function<void()> body);
  /// The (device, core) of the running kernel thread; ModelError elsewhere.
  CoreCoords here(std::source_location loc = std::source_location::current()) const;
  /// Index of the per-core instance of (device, core).
  std::uint32_t instance(std::uint32_t device, std::uint32_t core) const {
    return device * config_.cores + core;
  }
  /// "dev1" or "dev1.core0" when devices have several cores.
  std::string core_name(std::uint32_t device, std::uint32_t core) const;
  /// Logical device id of mesh coordinates (row-major over config().shape).
  std::uint32_t device_at(const std::vector<std::uint32_t>& coords) const;
  /// Mesh coordinates of a logical device id.
  std::vector<std::uint32_t> coords_of(std::uint32_t device) const;

  /// The barrier semaphore (pltpu.get_barrier_semaphore()).
  Sem barrier() const;
  /// The DMA semaphore sync_copy allocates with run_scoped, one per core.
  Sem sync_copy_semaphore() const;
  /// Registers a semaphore instance for the exit check (counts must be 0).
  void add_semaphore(TpuSemaphore& s) { semaphores_.push_back(&s); }
  /// Registers a started DMA for the exit check (every DMA must be waited).
  DmaRecord& add_dma(std::unique_ptr<DmaRecord> d);
  /// DMAs started so far, oldest first.
  const std::vector<std::unique_ptr<DmaRecord>>& dmas() const noexcept { return dmas_; }
  /// The grid iteration the running thread is in (see grid()).
  std::uint32_t& program_slot();

 private:
  void exit_checks();

  MeshConfig config_;
  std::map<std::uint32_t, CoreCoords> threads_;  // AgentId index -> coords
  std::map<std::uint32_t, std::uint32_t> programs_;  // AgentId index -> grid iteration
  std::vector<TpuSemaphore*> semaphores_;
  SemFamily* barrier_ = nullptr;
  SemFamily* sync_copy_ = nullptr;
  std::vector<std::unique_ptr<DmaRecord>> dmas_;
};

/// Logical id of the device the running kernel thread is on (lax.axis_index).
std::uint32_t device_id(std::source_location loc = std::source_location::current());
/// Index of the core the running kernel thread is on.
std::uint32_t core_id(std::source_location loc = std::source_location::current());
/// Number of devices of the running mesh.
std::uint32_t num_devices();

/// Runs the grid iterations 0..n-1 of the running core in order
/// (TPU grids are sequential loops on one core); `program_id()` reads i.
void grid(std::uint32_t n, const std::function<void(std::uint32_t)>& body);
/// The current grid iteration of the running core (0 outside grid()).
std::uint32_t program_id();

}  // namespace heddle::tpu
