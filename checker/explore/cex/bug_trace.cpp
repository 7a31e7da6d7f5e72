#include "checker/explore/cex/bug_trace.hpp"

namespace heddle {

BugTrace capture_bug_trace(const ExecutionRecord& ex) {
  BugTrace t;
  t.events = ex.trace();
  if (ex.bug() && t.events.size() > ex.bug()->step) t.events.resize(ex.bug()->step);
  for (const auto& a : ex.agents())
    t.agents.push_back({a->name, a->kind == Agent::Kind::thread, a->created_by, a->finished});
  for (auto& s : schedule_steps(ex)) {
    if (!s.is_choice())
      t.step_groups.push_back({std::move(s)});
    else if (t.step_groups.empty())
      t.setup_choices.push_back(std::move(s));
    else
      t.step_groups.back().push_back(std::move(s));
  }
  if (ex.bug()) t.bug = *ex.bug();
  return t;
}

}  // namespace heddle
