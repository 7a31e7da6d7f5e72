// A wait that returned, but not for the copy a race shows it was meant for
// (issue 47 item 6): a semaphore reused by several copies, a wrong mbarrier
// parity. Found from the trace alone (checker/DESIGN.md § Counterexamples).
#pragma once
#include <string>

#include "checker/engine/access_record.hpp"

namespace heddle {

class ExecutionRecord;
struct AsyncAgent;

/// When `thread`'s last step on an object that `copy` completes on (at or
/// before the thread's access) was a wait that other agents' signals
/// satisfied while `copy` had not completed there yet: the hint naming the
/// wait, who satisfied it, and the copy still in flight; else "".
std::string misled_wait_hint(const ExecutionRecord& ex, const AsyncAgent& copy,
                             const AccessRecord& copy_side, const AccessRecord& thread_side);

}  // namespace heddle
