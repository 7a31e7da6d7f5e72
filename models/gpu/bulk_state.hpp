// Completion state of bulk async copies and the per-thread bulk async-groups
// (PTX cp.async.bulk.commit_group / wait_group).
#pragma once
#include <optional>
#include <source_location>
#include <string>
#include <vector>

#include "checker/engine/primitives.hpp"

namespace heddle::gpu {

/// The completion state of one in-flight bulk copy, written by its phases.
/// Invariant: write_done implies read_done; *_waited implies *_done.
class BulkOp : public SyncObject {
 public:
  BulkOp(std::string name, std::string kind, std::source_location issued_at)
      : SyncObject(std::move(name)), kind(std::move(kind)), issued_at(issued_at) {}
  std::string kind;                  // "bulk store", "tensor store", "tensor load"
  std::source_location issued_at;
  bool read_done = false;            // tensormap and source reads done
  bool write_done = false;           // destination writes done
  bool read_waited = false;          // the issuer waited the read side
  bool write_waited = false;         // the issuer waited the whole op
  SyncClock read_clock;              // released by the last read phase
  SyncClock write_clock;             // released by the write phase
  std::uint32_t issued_time = 0;     // the issuer's own clock entry at the issue (race hints)
  /// A TMA load: it completes on its mbarrier; a bulk wait covers only its
  /// tensormap read (checker/DESIGN.md § Bulk async-groups and TMA loads).
  bool mbarrier_completed = false;
  /// Under --ptx-strict, a bulk wait that covers its group but, per the ISA,
  /// not this load: where it is and the issuer's clock entry there (hints).
  std::optional<std::source_location> strict_wait;
  std::uint32_t strict_wait_time = 0;
  /// "reading", "read, writing" or "done", and what was waited (replay --steps).
  std::string describe() const override {
    std::string s = write_done ? "done" : read_done ? "read, writing" : "reading";
    if (write_waited) return s + ", waited";
    return read_waited ? s + ", read side waited" : s;
  }
};

/// A thread's bulk async-groups: ops issued since the last commit, then the
/// committed groups oldest first (fully waited groups are dropped from the front).
struct BulkQueue {
  std::vector<BulkOp*> uncommitted;
  std::vector<std::vector<BulkOp*>> groups;
};

}  // namespace heddle::gpu
