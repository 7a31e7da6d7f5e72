// Follows a list of schedule steps and reports what it saw: the enabled
// agents after the last step, the preemptions, the bug. Used by minimization.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "checker/engine/execution_record.hpp"
#include "checker/registry.hpp"
#include "checker/engine/schedule.hpp"
#include "checker/explore/run.hpp"

namespace heddle {


/// What following a step list showed.
struct Followed {
  bool ok = false;                     // every step replayed as written
  bool stopped = false;                // the steps ended before the execution did
  std::vector<std::string> enabled;    // when stopped: agents enabled at the next pick
  std::vector<ScheduleStep> pending;   // when stopped: their pending operations, as steps
  std::vector<Footprint> footprints;   // ... and those operations' footprints
  std::uint32_t preemptions = 0;       // thread switches away from a still-enabled thread
  std::optional<BugReport> bug;        // the bug the execution ended with, if any
};

/// Runs `steps` of the runner's model; stops at the first pick after the last step.
Followed follow(Runner& runner, const std::vector<ScheduleStep>& steps);

/// Replays `steps` with the replay strategy (as `heddle replay` does); the
/// bug it shows, or nullopt when the schedule diverges or shows no bug.
std::optional<BugReport> confirm_replay(Runner& runner, const std::vector<ScheduleStep>& steps);

/// Replays `steps` of `kernel` and counts its preemptions (switches away from
/// a thread that is still enabled; async agents never count). Throws
/// UsageError when the schedule does not replay.
std::uint32_t count_preemptions(const Kernel& kernel, const Params& params,
                                const std::vector<ScheduleStep>& steps);

/// True when two reports describe the same bug: same verdict and, for races,
/// the same two access sites (in either order); otherwise the same title.
bool same_bug(const BugReport& a, const BugReport& b);

}  // namespace heddle
