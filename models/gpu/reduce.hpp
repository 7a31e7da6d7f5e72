// TMA and bulk reductions (PTX ISA §9.7.9.25.4.2 cp.reduce.async.bulk,
// §9.7.9.25.5.2 cp.reduce.async.bulk.tensor): a store from shared memory
// that combines each element into global memory (add, min, max, inc, dec,
// and, or, xor) in the
// async proxy at its write phase, completed through bulk async-groups.
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <source_location>
#include <type_traits>

#include "checker/engine/errors.hpp"
#include "models/gpu/bulk.hpp"

namespace heddle::gpu {

/// The reduction operator of a cp.reduce.async.bulk (.add, .min, .max,
/// .inc, .dec on .u32; .and, .or, .xor on bit types).
enum class ReduceOp { add, min, max, inc, dec, bit_and, bit_or, bit_xor };

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
    if constexpr (std::is_integral_v<T>) {
      // PTX ISA, atom/red .inc and .dec (the operators cp.reduce.async.bulk
      // shares): counters that wrap at the bound b.
      if constexpr (Op == ReduceOp::inc) a = a >= b ? T{0} : static_cast<T>(a + 1);
      if constexpr (Op == ReduceOp::dec) a = a == 0 || a > b ? b : static_cast<T>(a - 1);
      if constexpr (Op == ReduceOp::bit_and) a = static_cast<T>(a & b);
      if constexpr (Op == ReduceOp::bit_or) a = static_cast<T>(a | b);
      if constexpr (Op == ReduceOp::bit_xor) a = static_cast<T>(a ^ b);
    }
    std::memcpy(dst + i, &a, sizeof a);
  }
}

/// The Reduction of `op` on elements of type T (ModelError: .inc/.dec on
/// anything but .u32, bitwise operators on floating-point elements).
template <class T>
Reduction reduction(ReduceOp op) {
  static_assert(std::is_arithmetic_v<T>, "reductions combine numbers");
  const bool counter = op == ReduceOp::inc || op == ReduceOp::dec;
  const bool bitwise =
      op == ReduceOp::bit_and || op == ReduceOp::bit_or || op == ReduceOp::bit_xor;
  if (counter && !std::is_same_v<T, std::uint32_t>)
    throw ModelError("cp.reduce.async.bulk .inc/.dec reduce .u32 elements only");
  if (bitwise && !std::is_integral_v<T>)
    throw ModelError("cp.reduce.async.bulk .and/.or/.xor reduce bit types (integers) only");
  Reduction r;
  // Integer add and min/max of any type give one result in either order
  // (commutative and associative, each element combined atomically), and a
  // reduction never blocks or unblocks anything: two reductions of one
  // operator on the same bytes reach the same state in both orders.
  // .inc/.dec wrap at their operand, so two with different bounds give
  // different values in the two orders: plain writes. Bitwise and/or/xor
  // commute with themselves (each its own class: an and and an or do not).
  const bool exact = std::is_integral_v<T> || op != ReduceOp::add;
  switch (op) {
    case ReduceOp::inc:
      r = {"inc", 0, &combine_elements<T, ReduceOp::inc>};
      break;
    case ReduceOp::dec:
      r = {"dec", 0, &combine_elements<T, ReduceOp::dec>};
      break;
    case ReduceOp::bit_and:
      r = {"and", update_in_phase(Update::reduce_and), &combine_elements<T, ReduceOp::bit_and>};
      break;
    case ReduceOp::bit_or:
      r = {"or", update_in_phase(Update::reduce_or), &combine_elements<T, ReduceOp::bit_or>};
      break;
    case ReduceOp::bit_xor:
      r = {"xor", update_in_phase(Update::reduce_xor), &combine_elements<T, ReduceOp::bit_xor>};
      break;
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
/// The same for any box encoding.
void tensor_reduce(const TensorMap& desc, const Box& box, const Span& src, const Reduction& red,
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
