// TMA and bulk reductions (PTX ISA §9.7.9.25.4.2 cp.reduce.async.bulk,
// §9.7.9.25.5.2 cp.reduce.async.bulk.tensor): a store from shared memory
// that combines each element into global memory (add, min, max) in the
// async proxy at its write phase, completed through bulk async-groups.
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstring>
#include <source_location>
#include <type_traits>

#include "models/gpu/bulk.hpp"

namespace heddle::gpu {

/// The reduction operator of a cp.reduce.async.bulk (.add, .min, .max).
enum class ReduceOp { add, min, max };

/// How a reduction combines staged source bytes into its destination.
struct Reduction {
  const char* name = "add";  // the PTX .redOp
  /// The DPOR class of its write (op.hpp), or 0 when two orders can give
  /// different bytes (floating-point add rounds differently): a plain write.
  UpdateClass update = 0;
  /// dst[i] = op(dst[i], src[i]) over the `bytes` (whole elements) at dst.
  void (*combine)(std::byte* dst, const std::byte* src, std::size_t bytes) = nullptr;
};

/// dst[i] = Op(dst[i], src[i]) for elements of type T (a Reduction's combine).
template <class T, ReduceOp Op>
void combine_elements(std::byte* dst, const std::byte* src, std::size_t bytes) {
  for (std::size_t i = 0; i + sizeof(T) <= bytes; i += sizeof(T)) {
    T a, b;
    std::memcpy(&a, dst + i, sizeof a);
    std::memcpy(&b, src + i, sizeof b);
    if constexpr (Op == ReduceOp::add) a = static_cast<T>(a + b);
    if constexpr (Op == ReduceOp::min) a = std::min(a, b);
    if constexpr (Op == ReduceOp::max) a = std::max(a, b);
    std::memcpy(dst + i, &a, sizeof a);
  }
}

/// The Reduction of `op` on elements of type T.
template <class T>
Reduction reduction(ReduceOp op) {
  static_assert(std::is_arithmetic_v<T>, "reductions combine numbers");
  Reduction r;
  // Integer add, and min/max of any type, give one result in either order
  // (commutative and associative, each element combined atomically), and a
  // reduction never blocks or unblocks anything: two reductions of one
  // operator on the same bytes reach the same state in both orders.
  const bool exact = std::is_integral_v<T> || op != ReduceOp::add;
  switch (op) {
    case ReduceOp::add:
      r = {"add", update_in_phase(Update::counter_add), &combine_elements<T, ReduceOp::add>};
      break;
    case ReduceOp::min:
      r = {"min", update_in_phase(Update::reduce_min), &combine_elements<T, ReduceOp::min>};
      break;
    case ReduceOp::max:
      r = {"max", update_in_phase(Update::reduce_max), &combine_elements<T, ReduceOp::max>};
      break;
  }
  if (!exact) r.update = 0;
  return r;
}

/// cp.reduce.async.bulk.global.shared::cta.bulk_group.<red>: combines `src`
/// (shared) into `dst` (global); phases read_smem, then write_gmem.
void bulk_reduce(const Span& dst, const Span& src, const Reduction& red,
                 std::source_location loc = std::source_location::current());
/// cp.reduce.async.bulk.tensor.2d.global.shared::cta.<red>.tile.bulk_group:
/// phases read_desc, read_smem, write_gmem into box (c0, c1) of `desc`.
void tensor_reduce(const TensorMap& desc, std::uint32_t c0, std::uint32_t c1, const Span& src,
                   const Reduction& red,
                   std::source_location loc = std::source_location::current());

/// bulk_reduce of typed views with operator `op`.
template <class T>
void bulk_reduce(const View<T>& dst, const View<T>& src, ReduceOp op,
                 std::source_location loc = std::source_location::current()) {
  bulk_reduce(span(dst), span(src), reduction<T>(op), loc);
}
/// tensor_reduce of a typed shared view with operator `op` (CUTLASS
/// SM90_TMA_REDUCE_ADD and its min/max forms).
template <class T>
void tensor_reduce(const TensorMap& desc, std::uint32_t c0, std::uint32_t c1, const View<T>& src,
                   ReduceOp op, std::source_location loc = std::source_location::current()) {
  tensor_reduce(desc, c0, c1, span(src), reduction<T>(op), loc);
}

}  // namespace heddle::gpu
