// Ampere cp.async (PTX ISA §9.7.9.24): a per-thread copy from global to
// shared memory that completes some time after it is issued, in the
// generic proxy (it is not a bulk, async-proxy copy); cp.async-groups
// (commit_group, wait_group N, wait_all) and cp.async.mbarrier.arrive
// order its completion.
#pragma once
#include <cstdint>
#include <optional>
#include <source_location>

#include "models/gpu/barriers.hpp"
#include "models/gpu/bulk.hpp"

namespace heddle::gpu {

/// cp.async.ca/.cg.shared.global [dst], [src], cp-size{, src-size}: copies
/// `src_bytes` of `src` (all of it when nullopt) into `dst` and fills the
/// rest of `dst` with zeros. One async step reads the source and writes
/// the destination, both generic-proxy accesses (PTX ISA §9.7.9.24.3);
/// `.ca`/`.cg` differ only in caching, which heddle does not model.
void cp_async(const Span& dst, const Span& src, std::optional<std::size_t> src_bytes = std::nullopt,
              std::source_location loc = std::source_location::current());

/// cp.async.commit_group: batches this thread's uncommitted cp.async into a
/// new cp.async-group (PTX ISA §9.7.9.24.4).
void cp_async_commit_group();
/// cp.async.wait_group N: blocks until at most the N newest cp.async-groups
/// are pending; the copies of the older ones happen before what follows
/// (PTX ISA §9.7.9.24.5).
void cp_async_wait_group(std::uint32_t n,
                         std::source_location loc = std::source_location::current());
/// cp.async.wait_all: commit_group then wait_group 0.
void cp_async_wait_all(std::source_location loc = std::source_location::current());
/// cp.async.mbarrier.arrive{.noinc}.shared.b64 [bar]: an arrive-on `bar`
/// triggered once every cp.async this thread issued so far has completed
/// (it releases their writes to whoever waits the phase). Without
/// `noinc` the pending count is raised by one first, so the arrival does
/// not count against the barrier's expected count (PTX ISA §9.7.13.15,
/// cp.async.mbarrier.arrive).
void cp_async_mbarrier_arrive(Mbarrier& bar, bool noinc = false,
                              std::source_location loc = std::source_location::current());

/// cp.async of this thread not yet waited by a wait_group (tests and checks).
std::size_t cp_async_pending();

}  // namespace heddle::gpu
