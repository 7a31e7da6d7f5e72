#include "models/gpu/multicast.hpp"
#include "models/gpu/bulk_internal.hpp"

#include <fmt/format.h>

#include <memory>
#include <vector>

namespace heddle::gpu {

void tensor_load_multicast(const std::vector<Span>& dst, const TensorMap& desc, const Box& box,
                           const PerCta<Mbarrier*>& bar, std::uint16_t cta_mask,
                           std::source_location loc) {
  const ThreadInfo& t = this_thread(loc);
  const int cluster = current_grid(loc).config().cluster;
  if (cta_mask == 0 || (cta_mask >> cluster) != 0)
    throw ModelError(fmt::format("multicast CTA mask {:#x} must name at least one rank of the "
                                 "cluster of {} CTAs (bits 0..{})",
                                 cta_mask, cluster, cluster - 1),
                     loc);
  if (static_cast<int>(dst.size()) != current_grid(loc).config().ctas ||
      bar.ctas() != current_grid(loc).config().ctas)
    throw ModelError("multicast needs one destination and one mbarrier per CTA", loc);
  // PTX ISA §9.7.9.25.5.1 (.multicast::cluster): the box is copied to the same
  // CTA-relative offset in each destination CTA's shared memory, and each
  // destination's mbarrier at the same offset gets the complete_tx. The
  // destinations complete independently: one async agent per destination CTA
  // (each reads the same global box; a write to it meanwhile races anyway).
  std::vector<int> ctas;
  for (int r = 0; r < cluster; ++r)
    if ((cta_mask >> r & 1u) != 0) ctas.push_back(t.cta - t.rank + r);
  // The issue announces bytes in flight to each destination's mbarrier
  // (Mbarrier::copy_issued, which its phase-completion check reads): a
  // visible step that writes every one of them, so that DPOR orders it
  // against a remote CTA's arrival there (which a local load's issue, right
  // after its own arrive.expect_tx, does not need).
  PendingOp p;
  p.name = "cp.async.bulk.tensor.multicast::cluster";
  p.loc = loc;
  p.object = desc.region().id();
  p.has_object = true;
  for (int cta : ctas) p.footprint.push_back(all_phases(bar[cta]->id()));
  Execution::current().visible(std::move(p));
  // One load reads its tensormap once, before any destination's bytes land:
  // each destination's completion follows that one read (detail::DescRead),
  // so an issuer that waits on its own mbarrier may then rewrite the tensormap.
  auto once = std::make_shared<detail::DescRead>();
  for (int cta : ctas)
    detail::tensor_load_once(dst[static_cast<std::size_t>(cta)], desc, box, *bar[cta], once, loc);
}

}  // namespace heddle::gpu
