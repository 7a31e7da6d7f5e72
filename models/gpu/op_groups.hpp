// Per-thread groups of async operations that complete in commit order and
// are waited by depth: what cp.async-groups (PTX ISA §9.7.9.24) and
// wgmma-groups (§9.7.15) share. (Bulk async-groups, with their separate
// read side, live in bulk.cpp.)
#pragma once
#include <cstdint>
#include <source_location>
#include <vector>

#include "models/gpu/bulk_state.hpp"

namespace heddle::gpu {

/// An op's completion: [1, 2) of its BulkOp, written by the op's step and
/// read by the waits that cover it (bulk.cpp's write side).
inline Access done_side(const BulkOp& op, bool write) { return Access{op.id(), 1, 2, write}; }
/// The read of an op's done side by a wait that is blocked until the op completes.
inline Access done_needed(const BulkOp& op) { return needed(done_side(op, false)); }

/// commit_group: the uncommitted ops become the newest group.
void commit_group(BulkQueue& q);

/// wait_group N: blocks (as operation `name`) until every op of all but the
/// N newest groups is done, acquires their releases, and drops those groups.
void wait_group(BulkQueue& q, std::uint32_t n, const char* name, std::source_location loc);

/// Blocks until every op of `ops` is done, then acquires their releases.
void wait_ops(std::vector<BulkOp*>& ops, const char* name, std::source_location loc);

/// Ops of `q` not yet waited.
std::size_t pending_ops(const BulkQueue& q);

}  // namespace heddle::gpu
