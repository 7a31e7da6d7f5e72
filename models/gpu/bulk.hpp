// Bulk and tensor (TMA) copies as async agents, per-thread bulk
// async-groups, proxy fences and tensormaps (PTX ISA 9.7.9.25, 9.7.9.26).
#pragma once
#include <cstdint>
#include <functional>
#include <source_location>
#include <string>
#include <vector>

#include "models/gpu/barriers.hpp"
#include "models/gpu/memory.hpp"

namespace heddle::gpu {

/// A contiguous run of elements in a region: the source or destination of a copy.
struct Span {
  Region* region = nullptr;
  std::size_t first = 0;  // elements
  std::size_t count = 0;
  std::size_t bytes() const noexcept { return count * region->elem_size(); }
  /// The footprint entry of these bytes.
  Access touches(bool write) const;
};

/// The span of a typed view.
template <class T>
Span span(const View<T>& v) {
  return Span{&v.region(), v.first(), v.size()};
}

/// Contents of a tensormap as this model encodes them in its 128 bytes: a
/// 2-D tensor of boxes stored box after box, box (c0, c1) at
/// global_address + (c1 * dims[0] + c0) * box_bytes (one box = one contiguous run).
struct TmaDesc {
  std::uint64_t global_address = 0;
  std::uint32_t box_bytes = 0;
  std::uint32_t dims[2] = {1, 1};  // boxes along each coordinate
};

/// One run of a TMA box in global memory: `bytes` at `address`, holding the
/// box's bytes from `box_offset` on (box order: dimension 0 fastest).
struct BoxRun {
  std::uint64_t address = 0;
  std::uint32_t bytes = 0;
  std::uint32_t box_offset = 0;
};

/// Where a box lies, as the tensormap says when a copy reads it (PTX ISA
/// 5.5.1-5.5.7, tensor copies): its global runs (parts outside the tensor
/// have none: a load fills zeros there, a store skips them), its bytes in
/// shared memory, and the shared-memory swizzle.
struct BoxPlace {
  std::vector<BoxRun> runs;
  std::uint32_t box_bytes = 0;
  std::uint32_t swizzle = 0;  // 0 (none), 32, 64 or 128: bytes of the swizzle pattern's row
};

/// A TMA operation's box: its name in reports, how to place it from the
/// tensormap's 128 bytes (read in the copy's own phase), and the shared
/// address of its first byte (swizzle patterns follow shared address bits).
struct Box {
  std::string label;  // "box (0, 1)"
  std::function<BoxPlace(const std::byte* desc, std::source_location)> place;
  std::uint32_t smem_address = 0;
};

/// Box (c0, c1) of a tensormap in this model's TmaDesc encoding (one run, no swizzle).
Box desc_box(std::uint32_t c0, std::uint32_t c1);

/// A 128-byte tensormap in global memory (what TMA ops read) or shared memory
/// (the copy CUTLASS edits).
using TensorMap = View<std::uint8_t>;
/// Allocates a global tensormap holding `init` (written by the host).
TensorMap global_tensormap(const std::string& name, const TmaDesc& init);
/// Allocates a shared-memory tensormap in every CTA, holding `init`.
Shared<std::uint8_t> shared_tensormap(const std::string& name, const TmaDesc& init);
/// The descriptor of a global view holding boxes of `box_elems` elements.
template <class T>
TmaDesc describe_boxes(const View<T>& v, std::size_t box_elems, std::uint32_t d0, std::uint32_t d1) {
  TmaDesc d;
  d.global_address = current_grid().address_of(v.region()) + v.first() * sizeof(T);
  d.box_bytes = static_cast<std::uint32_t>(box_elems * sizeof(T));
  d.dims[0] = d0;
  d.dims[1] = d1;
  return d;
}

/// tensormap.replace.global_address on a tensormap (a weak generic write of its bytes).
void tensormap_replace_global_address(const TensorMap& desc, std::uint64_t address,
                                      std::source_location loc = std::source_location::current());
/// tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release: copies
/// the shared tensormap to global memory in the generic proxy.
void tensormap_cp_fenceproxy(const TensorMap& global_desc, const TensorMap& shared_desc,
                             std::source_location loc = std::source_location::current());
/// fence.proxy.tensormap::generic.release: this thread's generic writes so
/// far (of a tensormap) become available to acquire fences it synchronizes with.
void fence_proxy_tensormap_release(const TensorMap& global_desc,
                                   std::source_location loc = std::source_location::current());
/// fence.proxy.tensormap::generic.acquire: later tensormap-proxy reads by
/// this thread's TMA ops see the generic writes released to it (or by it).
void fence_proxy_tensormap_acquire(const TensorMap& global_desc,
                                   std::source_location loc = std::source_location::current());
/// fence.proxy.async: later async-proxy accesses by this thread's copies see
/// its generic accesses so far (commit := clock, checker/DESIGN.md § Proxies and tensormaps).
void fence_proxy_async(std::source_location loc = std::source_location::current());

/// cp.async.bulk.shared::cluster.global.mbarrier::complete_tx: copies `src`
/// (global) to `dst` (shared) and performs complete_tx(bytes) on `bar`.
void bulk_load(const Span& dst, const Span& src, Mbarrier& bar,
               std::source_location loc = std::source_location::current());
/// cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx: reads
/// the tensormap in its own phase, then copies box (c0, c1) to `dst`.
void tensor_load(const Span& dst, const TensorMap& desc, std::uint32_t c0, std::uint32_t c1,
                 Mbarrier& bar, std::source_location loc = std::source_location::current());
/// The same for any box encoding (`box` places it when the copy reads the tensormap).
void tensor_load(const Span& dst, const TensorMap& desc, const Box& box, Mbarrier& bar,
                 std::source_location loc = std::source_location::current());
/// cp.async.bulk.global.shared::cta.bulk_group: copies `src` (shared) to `dst` (global).
void bulk_store(const Span& dst, const Span& src,
                std::source_location loc = std::source_location::current());
/// cp.async.bulk.tensor.2d.global.shared::cta.bulk_group: phases read_desc,
/// read_smem, write_gmem; the box goes where the descriptor it reads says.
void tensor_store(const TensorMap& desc, std::uint32_t c0, std::uint32_t c1, const Span& src,
                  std::source_location loc = std::source_location::current());
/// The same for any box encoding.
void tensor_store(const TensorMap& desc, const Box& box, const Span& src,
                  std::source_location loc = std::source_location::current());

/// A wgmma operand read of element i of shared memory: an async-proxy read
/// by the running thread (race-checked; wgmma runs in the async proxy).
template <class T>
T wgmma_read(const View<T>& v, std::size_t i,
             std::source_location loc = std::source_location::current()) {
  View<T> e = v.at(i, loc);
  e.region().access(e.first(), 1, false, Proxy::async, "wgmma.read", loc);
  return e.raw(0);
}

/// cp.async.bulk.commit_group: batches this thread's uncommitted bulk ops
/// into a new group (possibly empty).
void bulk_commit_group();
/// cp.async.bulk.wait_group N: blocks until all but the N most recent groups
/// have completed entirely (writes visible to this thread).
void bulk_wait_group(std::uint32_t n, std::source_location loc = std::source_location::current());
/// cp.async.bulk.wait_group.read N: same, for the source and tensormap reads only.
void bulk_wait_group_read(std::uint32_t n,
                          std::source_location loc = std::source_location::current());
/// Bulk ops of this thread not yet waited entirely (for tests and checks).
std::size_t bulk_pending();

}  // namespace heddle::gpu
