// What bulk.cpp (loads, waits, tensormaps) and bulk_store.cpp (stores,
// reductions) share: staging, span words, completion sides, descriptor reads.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <source_location>
#include <string>
#include <vector>

#include "models/gpu/bulk.hpp"

namespace heddle::gpu {
struct Reduction;
namespace detail {

/// Bytes of a tensormap object.
constexpr std::size_t kDescBytes = 128;

/// Bytes in flight between a copy's read phase and its write phase.
struct Staging {
  Span dst;
  std::vector<std::byte> bytes;
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
std::string box_text(const TensorMap& desc, std::uint32_t c0, std::uint32_t c1);
/// A new BulkOp named "<kind> <moves>", counted as issued by `t`.
BulkOp& new_op(ThreadState& t, const char* kind, const char* what, const std::string& moves,
               std::source_location loc);
/// The footprint entry of a copy's destination: a write, or a reduction's
/// commutative update when its class has one (reduce.hpp says why).
Access dst_entry(const Span& s, bool write, const Reduction* red);
/// A TMA op's read_desc phase: reads the tensormap, resolves box (c0, c1)
/// into st->dst and sets phase `target_phase`'s footprint to it plus `target_rest`.
Phase read_desc_phase(const TensorMap& desc, std::uint32_t c0, std::uint32_t c1,
                      std::size_t bytes, std::shared_ptr<Staging> st, std::size_t target_phase,
                      bool target_write, Footprint target_rest, std::source_location loc,
                      const Reduction* red = nullptr);

}  // namespace detail
}  // namespace heddle::gpu
