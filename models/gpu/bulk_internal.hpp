// What bulk.cpp (loads, waits, tensormaps) and bulk_store.cpp (stores,
// reductions) share: staging, span words, completion sides, descriptor reads.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <source_location>
#include <string>
#include <vector>

#include "checker/engine/sync.hpp"
#include "models/gpu/bulk.hpp"

namespace heddle::gpu {
struct Reduction;
namespace detail {

/// Bytes of a tensormap object.
constexpr std::size_t kDescBytes = 128;

/// A resolved run of a box: where in a global region, from which box byte.
struct Piece {
  Span span;
  std::uint32_t box_offset = 0;
};

/// A copy's global side and the bytes in flight between its read phase and
/// its write phase. Invariant: every piece lies in one region.
struct Staging {
  std::vector<Piece> global;  // a TMA box's runs (set by read_desc), or a bulk copy's span
  std::uint32_t swizzle = 0;  // of the box in shared memory (Box::smem_address anchors it)
  std::uint32_t box_bytes = 0;
  std::vector<std::byte> bytes;
  /// The region the global side lies in (nullptr when the box is wholly outside its tensor).
  Region* region() const { return global.empty() ? nullptr : global.front().span.region; }
};

/// Bounds-checks and race-checks an access to `s` by the running agent.
void access(const Span& s, bool write, Proxy proxy, const char* op, std::source_location loc);
/// The first byte of `s`.
std::byte* data(const Span& s);
/// The async agent running now ([heddle bug] outside one).
AsyncAgent& self_async();
/// A bulk op's read side ([0, 1) of its object): source and tensormap reads done.
Access read_side(const BulkOp& op, bool write);
/// A bulk op's write side ([1, 2)): destination writes done.
Access write_side(const BulkOp& op, bool write);
/// The running thread's own clock entry (BulkOp::issued_time).
std::uint32_t issuer_time();
/// "sC[0:2]", "sC[3]" or "sC": what a copy reads or writes.
std::string span_text(const Span& s);
/// "tmap_out box (0, 1)": the global box a TMA operation names.
std::string box_text(const TensorMap& desc, const Box& box);
/// Resolves a placed box into pieces of one mapped global region; ModelError
/// naming the tensormap when a run is unmapped or the box size differs.
void resolve_box(Staging& st, const BoxPlace& place, const TensorMap& desc,
                 std::size_t want_bytes, std::source_location loc);
/// The footprint entry covering a staging's global pieces (empty when none).
Footprint global_footprint(const Staging& st, bool write, const Reduction* red);
/// Copies box bytes `box` into shared span `dst` through the swizzle (PTX ISA
/// 5.5.7: 16-byte chunk bits 4-6 of the shared address XOR bits 7-9), and back.
void to_smem(const Span& dst, const std::byte* box, std::uint32_t swizzle, std::uint32_t address);
void from_smem(std::byte* box, const Span& src, std::uint32_t swizzle, std::uint32_t address);
/// A new BulkOp named "<kind> <moves>", counted as issued by `t`.
BulkOp& new_op(ThreadState& t, const char* kind, const char* what, const std::string& moves,
               std::source_location loc);
/// The footprint entry of a copy's destination: a write, or a reduction's
/// commutative update when its class has one (reduce.hpp says why).
Access dst_entry(const Span& s, bool write, const Reduction* red);
/// A multicast load's one tensormap read, shared by its destinations' copies:
/// the first to run reads and resolves; the others take its box and clock.
struct DescRead {
  bool done = false;
  Staging staging;
  SyncClock clock;  // released by the read, acquired by the other destinations
};
/// A TMA op's read_desc phase: reads the tensormap (or takes `once`'s read),
/// resolves `box` into st->global, sets phase `target_phase`'s footprint to it plus `target_rest`.
Phase read_desc_phase(const TensorMap& desc, const Box& box, std::size_t bytes, std::shared_ptr<Staging> st, std::size_t target_phase,
                      bool target_write, Footprint target_rest, std::source_location loc,
                      const Reduction* red = nullptr, std::shared_ptr<DescRead> once = nullptr);
/// tensor_load whose tensormap read is `once`'s, shared with the other destinations of a multicast.
void tensor_load_once(const Span& dst, const TensorMap& desc, const Box& box, Mbarrier& bar,
                      std::shared_ptr<DescRead> once, std::source_location loc);

}  // namespace detail
}  // namespace heddle::gpu
