// A buggy execution as plain data: what minimization and shrinking need.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "checker/engine/execution_record.hpp"
#include "checker/engine/schedule.hpp"

namespace heddle {

/// What minimization needs from the buggy execution, as plain data.
struct BugTrace {
  /// One agent of the execution.
  struct AgentInfo {
    std::string name;
    bool thread = true;
    std::int32_t created_by = -1;  // creating event (-1: setup)
    bool finished = false;         // finished when the execution ended
  };
  std::vector<Event> events;
  std::vector<AgentInfo> agents;
  std::vector<ScheduleStep> setup_choices;            // data choices made before step 1
  std::vector<std::vector<ScheduleStep>> step_groups; // per event: its step, then its choices
  BugReport bug;
};

/// Copies what minimization needs out of an execution that ended in a bug.
BugTrace capture_bug_trace(const ExecutionRecord& ex);

}  // namespace heddle
