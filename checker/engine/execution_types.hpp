// Plain data an execution hands to strategies and explorers: its trace's
// events, its data choices, its limits and how it ended.
#pragma once
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <source_location>

#include "checker/engine/ids.hpp"
#include "checker/engine/op.hpp"

namespace heddle {

/// One executed step of the trace. Events are plain data for strategies.
struct Event {
  AgentId agent{};
  const char* op = "";
  ObjectId object{};
  bool has_object = false;
  std::source_location loc;
  Footprint footprint;
  std::int32_t created_by = -1;  // for an agent's first event: the creating event
  std::uint32_t agent_event = 0; // index of this event among its agent's events
};

/// A data choice made by the model (heddle::choose) during a step.
struct DataChoice {
  std::uint32_t step = 0;    // step during which it was made (0: setup)
  std::uint32_t value = 0;
  std::uint32_t range = 0;   // the value was in [0, range)
};

/// Limits that apply to one execution.
struct ExecutionLimits {
  std::uint32_t max_steps = 100000;   // beyond: livelock / unbounded loop
  double step_timeout = 10.0;          // seconds one fiber step may run
  bool finish_after_bug = false;       // run on to the end after the first bug (keeping it)
  /// The run's wall-clock deadline (epoch: none); an execution still
  /// running past it is abandoned, so one long execution cannot outlive
  /// --time-limit.
  std::chrono::steady_clock::time_point deadline{};
};

/// Most agents (threads and async agents) one execution may create.
inline constexpr std::size_t kMaxAgents = 1u << 16;

/// How an execution ended. `abandoned`: the strategy gave it up (pick
/// returned kAbandon); it has no final state and is not counted as explored.
/// `discarded`: a thread's assume() failed and nothing else could run (not
/// an execution of the model; counted apart).
enum class Ending { complete, bug, step_limit, abandoned, discarded };

}  // namespace heddle
