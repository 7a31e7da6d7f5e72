// Pallas TPU memory: per-device HBM, per-core VMEM and SMEM, typed refs
// with slices. A ref names one allocation; each device (HBM) or core
// (VMEM, SMEM) has its own instance, as each device's kernel sees its own
// x_ref. Loads and stores are plain accesses, race-checked.
#pragma once
#include <cstdint>
#include <functional>
#include <source_location>
#include <string>
#include <vector>

#include "models/tpu/mesh.hpp"

namespace heddle::tpu {

/// Pallas memory spaces (pltpu.ANY/HBM, VMEM, SMEM).
enum class Space { hbm, vmem, smem };

/// Short name of a memory space ("hbm", "vmem", "smem").
const char* space_name(Space s);

/// One allocation: a region per device (HBM) or per (device, core) (VMEM, SMEM).
struct Allocation {
  std::string name;
  Space space = Space::hbm;
  std::size_t count = 0;            // elements per instance
  std::vector<Region*> instances;   // indexed by device (HBM) or Mesh::instance()
};

/// Creates the regions of an allocation of `count` elements of `elem` bytes.
Allocation& allocate(Mesh& mesh, std::string name, Space space, std::size_t elem,
                     std::size_t count);

/// One resolved range of one instance (what a DMA reads or writes): `count`
/// elements from `first`, contiguous, or, for a strided DMA (a block of a
/// bigger array, as Mosaic issues one descriptor per block), runs of `run`
/// elements, run i starting at first + i * stride.
struct Place {
  Region* region = nullptr;
  std::size_t first = 0;  // elements
  std::size_t count = 0;
  std::size_t run = 0;     // elements per run; 0: one contiguous run of `count`
  std::size_t stride = 0;  // elements between run starts (strided only)

  bool strided() const noexcept { return run != 0 && run < count; }
  /// Number of runs (1 when contiguous).
  std::size_t runs() const noexcept { return strided() ? count / run : 1; }
  /// Elements per run.
  std::size_t run_size() const noexcept { return strided() ? run : count; }
  /// First element of run i.
  std::size_t run_first(std::size_t i) const noexcept { return first + i * (strided() ? stride : 0); }
  /// One past the last element it touches.
  std::size_t end() const noexcept { return run_first(runs() - 1) + run_size(); }
  /// The footprint entry of a contiguous range (bytes), read or written.
  Access access(bool write) const;
  /// Adds one footprint entry per run to `fp` (exact: two blocks of one
  /// array side by side do not overlap).
  void add_accesses(Footprint& fp, bool write) const;
};

/// A typed reference to (a slice of) an allocation. Unpinned, it names the
/// instance of the thread that uses it; `at_device(d)` pins another device.
template <class T>
class Ref {
 public:
  Ref() = default;
  Ref(Allocation& a) : alloc_(&a), count_(a.count) {}  // NOLINT: a ref to a whole buffer

  /// Elements [first, first+n) of this ref (pl.ds(first, n)).
  Ref slice(std::size_t first, std::size_t n,
            std::source_location loc = std::source_location::current()) const {
    if (first + n > count_)
      throw ModelError(fmt_slice(first, n), loc);
    Ref r = *this;
    r.first_ += first;
    r.count_ = n;
    return r;
  }
  /// The same ref on device `d` (and core `c`, VMEM/SMEM), e.g. a remote DMA's target.
  Ref at_device(std::uint32_t d, std::uint32_t c = 0) const {
    Ref r = *this;
    r.device_ = static_cast<int>(d);
    r.core_ = static_cast<int>(c);
    return r;
  }
  std::size_t size() const noexcept { return count_; }
  /// True when at_device() fixed the instance this ref names.
  bool pinned() const noexcept { return device_ >= 0; }
  Space space() const noexcept { return alloc_->space; }
  const std::string& name() const noexcept { return alloc_->name; }

  /// Reads element i of this core's instance (plain load).
  T load(std::size_t i, std::source_location loc = std::source_location::current()) const {
    return buffer(loc).load(index(i, loc), loc);
  }
  /// Writes element i of this core's instance (plain store).
  void store(std::size_t i, T v, std::source_location loc = std::source_location::current()) const {
    buffer(loc).store(index(i, loc), v, loc);
  }
  /// Element i of the instance on (device, core), unchecked (results, setup).
  T raw(std::size_t i, std::uint32_t device, std::uint32_t core = 0) const {
    return Buffer<T>(*region(device, core)).raw(first_ + i);
  }
  /// Sets element i of the instance on (device, core) (host-provided inputs).
  void init(std::size_t i, T v, std::uint32_t device, std::uint32_t core = 0) const {
    Buffer<T>(*region(device, core)).init(first_ + i, v);
  }
  /// The byte range this ref names, resolved for the running thread.
  Place place(std::source_location loc = std::source_location::current()) const {
    auto c = pinned_or_here(loc);
    return Place{region(c.device, c.core), first_, count_};
  }

 private:
  CoreCoords pinned_or_here(std::source_location loc) const {
    if (device_ >= 0) return CoreCoords{static_cast<std::uint32_t>(device_),
                                        static_cast<std::uint32_t>(core_)};
    return Mesh::current().here(loc);
  }
  Region* region(std::uint32_t device, std::uint32_t core) const {
    auto& mesh = Mesh::current();
    if (device >= mesh.devices() || core >= mesh.cores())
      throw ModelError("ref " + alloc_->name + " used on a device or core the mesh lacks");
    auto i = alloc_->space == Space::hbm ? device : mesh.instance(device, core);
    return alloc_->instances[i];
  }
  Buffer<T> buffer(std::source_location loc) const {
    auto c = pinned_or_here(loc);
    return Buffer<T>(*region(c.device, c.core));
  }
  std::size_t index(std::size_t i, std::source_location loc) const {
    if (i >= count_) throw ModelError(fmt_slice(i, 1), loc);
    return first_ + i;
  }
  std::string fmt_slice(std::size_t first, std::size_t n) const {
    return alloc_->name + "[" + std::to_string(first) + "+" + std::to_string(n) +
           "] is outside the ref of " + std::to_string(count_) + " elements";
  }

  Allocation* alloc_ = nullptr;
  std::size_t first_ = 0;
  std::size_t count_ = 0;
  int device_ = -1;  // pinned device, -1: the using thread's
  int core_ = -1;
};

/// A buffer in each device's HBM (shared by that device's cores).
template <class T>
Ref<T> hbm(std::string name, std::size_t n) {
  return Ref<T>(allocate(Mesh::current(), std::move(name), Space::hbm, sizeof(T), n));
}
/// A scratch buffer in each core's VMEM.
template <class T>
Ref<T> vmem(std::string name, std::size_t n) {
  return Ref<T>(allocate(Mesh::current(), std::move(name), Space::vmem, sizeof(T), n));
}
/// A scratch buffer in each core's SMEM (scalars).
template <class T>
Ref<T> smem(std::string name, std::size_t n) {
  return Ref<T>(allocate(Mesh::current(), std::move(name), Space::smem, sizeof(T), n));
}

}  // namespace heddle::tpu
