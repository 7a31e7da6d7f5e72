// Multicast TMA loads (PTX ISA §9.7.9.25.5.1, cp.async.bulk.tensor with
// .multicast::cluster): one load writes the same box into the shared
// memory of every CTA of the cluster named in a CTA mask, at the same
// offset, and performs complete_tx on each destination CTA's mbarrier at
// the same offset.
#pragma once
#include <cstdint>
#include <source_location>
#include <vector>

#include "models/gpu/bulk.hpp"

namespace heddle::gpu {

/// The multicast core: `dst[c]` and `bar[c]` are CTA c's destination and
/// mbarrier; writes to the CTAs of the caller's cluster whose rank bit is
/// set in `cta_mask` (ModelError for an empty mask or a rank outside it).
void tensor_load_multicast(const std::vector<Span>& dst, const TensorMap& desc, const Box& box,
                           const PerCta<Mbarrier*>& bar, std::uint16_t cta_mask,
                           std::source_location loc = std::source_location::current());

/// cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes
/// .multicast::cluster: box (c0, c1) into elements [first, first+count) of
/// `smem` in every CTA of `cta_mask`, completing on that CTA's `bar`.
template <class T>
void tensor_load_multicast(const Shared<T>& smem, std::size_t first, std::size_t count,
                           const TensorMap& desc, std::uint32_t c0, std::uint32_t c1,
                           const PerCta<Mbarrier*>& bar, std::uint16_t cta_mask,
                           std::source_location loc = std::source_location::current()) {
  std::vector<Span> dst;
  for (int c = 0; c < smem.ctas(); ++c) dst.push_back(span(smem[c].slice(first, count, loc)));
  tensor_load_multicast(dst, desc, desc_box(c0, c1), bar, cta_mask, loc);
}

}  // namespace heddle::gpu
