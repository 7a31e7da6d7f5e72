// Pictures of one execution: a swimlane timeline (SVG) and a Chrome trace /
// Perfetto JSON, with the happens-before edges into the racing accesses.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "checker/engine/clock.hpp"
#include "checker/explore/explorer.hpp"

namespace heddle {

/// One lane: a thread or an async agent.
struct TimelineAgent {
  std::string name;
  bool async = false;
  std::string issuer;             // async: the issuing agent ("host" for setup)
  std::uint32_t issued_at = 0;    // async: issued during or after this step (0: before step 1)
  std::uint32_t completed_at = 0; // async: step of its last phase (0: still in flight at the end)
  std::string issued_where;       // async: the issue site (file:line)
};

/// One step of the schedule, drawn as a box in its agent's lane.
struct TimelineStep {
  std::uint32_t step = 0;  // 1-based
  std::size_t agent = 0;   // index into Timeline::agents
  std::string op;          // "lock(m)"
  std::string at;          // file:line
  bool in_past = false;    // in the causal past of a racing access (or of the bug)
  /// In the race's causal slice (see build_timeline): drawn in the default
  /// picture; the other steps fold into markers. True for every step when
  /// there is no bug.
  bool in_slice = true;
};

/// One racing access. It ran inside its agent's step `column`, or, when
/// `own_step` is false, before its agent's first step (after step `column`).
struct TimelineAccess {
  std::size_t agent = 0;
  std::uint32_t column = 0;
  bool own_step = true;
  AccessInfo info;
};

/// A happens-before edge of the transitive reduction (Hasse diagram) of the
/// causal past: from a step into a step, or into a standalone access.
struct TimelineEdge {
  std::uint32_t from = 0;  // step
  std::uint32_t to = 0;    // step; 0 when `access` is the target
  int access = -1;         // index into Timeline::accesses when the target is a standalone access
  bool creation = false;   // the spawn or issue that created the target's agent
};

/// Everything the pictures show, as plain data.
struct Timeline {
  std::string kernel;
  std::map<std::string, std::string> params;
  std::string verdict;       // "race", ... or "ok"
  std::string title;         // the bug's one-line title (empty: no bug)
  std::uint32_t bug_step = 0;  // the step at which a non-race bug was detected
  std::vector<TimelineAgent> agents;
  std::vector<TimelineStep> steps;
  std::vector<TimelineAccess> accesses;
  std::vector<TimelineEdge> edges;
};

/// Captures the timeline of the last execution of a run. It wraps the run's
/// strategy (RunConfig::decorate) and reads the agents' clocks at each pick.
class TimelineCapture {
 public:
  /// Captures runs of `kernel` with `params` (named in the pictures).
  TimelineCapture(std::string kernel, std::map<std::string, std::string> params);
  ~TimelineCapture();
  TimelineCapture(const TimelineCapture&) = delete;
  TimelineCapture& operator=(const TimelineCapture&) = delete;
  /// The decorator to put in RunConfig::decorate; valid while this object lives.
  StrategyDecorator decorator();
  /// The timeline of the last execution that ended (nullopt before any).
  const std::optional<Timeline>& timeline() const noexcept { return timeline_; }

  /// Clocks recorded during one execution (internal; filled by the decorator).
  struct Clocks {
    std::vector<std::uint32_t> start;          // per step: own clock entry when picked
    std::vector<VectorClock> after;            // per step: the agent's clock after it
    std::map<std::size_t, VectorClock> first;  // per agent: its clock before its first step
  };

 private:
  friend class TimelineStrategy;
  std::string kernel_;
  std::map<std::string, std::string> params_;
  std::optional<Timeline> timeline_;
};

/// Builds the timeline of `ex` from the clocks captured while it ran.
Timeline build_timeline(const ExecutionRecord& ex, const TimelineCapture::Clocks& clocks,
                        const std::string& kernel, const std::map<std::string, std::string>& params);

/// How the SVG is drawn.
struct TimelineOptions {
  /// Every step (replay --timeline-full); by default the steps outside the
  /// causal slice fold into one marker per run of consecutive steps.
  bool full = false;
};

/// The swimlane picture: one lane per agent, one box per step, each racing
/// access a marker of its own after the operation it follows, happens-before
/// arrows from operations into them, in-flight bars, folded steps.
std::string timeline_svg(const Timeline& t, const TimelineOptions& options = {});

/// The same as Chrome trace event format JSON (chrome://tracing, ui.perfetto.dev):
/// one track per agent, 1 ms per step, flow arrows for happens-before edges.
nlohmann::json chrome_trace(const Timeline& t);

}  // namespace heddle
