// Model code the controller calls on its own stack, between steps: an await
// predicate, a copy phase's enabling condition. It runs under the same step
// watchdog and fault handlers as a fiber step, so a runaway predicate is
// reported with its line instead of hanging heddle (issue 18, item 4).
#pragma once
#include <functional>

namespace heddle {

/// Calls `pred` under the step watchdog and the fault handlers (inside a
/// fiber it just calls it: the fiber's step is guarded already). A runaway
/// loop throws StepTimeout (the caller's report names the predicate's
/// line); a fault (a bad pointer, abort(), a stack overflow, an arithmetic
/// fault) throws std::runtime_error saying which.
bool guarded_call(const std::function<bool()>& pred);

}  // namespace heddle
