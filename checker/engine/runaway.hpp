// A runaway step: a thread, phase, predicate or exit check that ran past
// --step-timeout without a visible operation (the step watchdog stopped it).
#pragma once
#include <string_view>

#include "checker/engine/bug.hpp"

namespace heddle {

/// How a runaway step's model error title ends ("T0 ran for over 10 s
/// without reaching a visible operation").
inline constexpr std::string_view kRunawayWords = "without reaching a visible operation";

/// True when `bug` is a runaway step's: each replay of its schedule runs
/// for the whole step timeout again (so minimization does not replay it).
inline bool is_runaway(const BugReport& bug) {
  return bug.kind == Verdict::model_error && bug.title.ends_with(kRunawayWords);
}

}  // namespace heddle
