#include "checker/engine/misled_wait.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <vector>

#include "checker/engine/execution.hpp"

namespace heddle {
namespace {

// What a step does to object `o`: nothing, observe it (a read, or a take of
// units: a wait), or give to it (a write, an update or a give of units: a signal).
enum class Touch { none, observe, give };

Touch touch(const Footprint& fp, ObjectId o) {
  Touch t = Touch::none;
  for (const Access& a : fp) {
    if (a.object != o) continue;
    if (!a.write || a.token < 0) return Touch::observe;
    t = Touch::give;
  }
  return t;
}

// The first step of `copy` at or after position `from` that gives to `o`
// (its completion there); the copy's pending operation counts as position
// trace.size(). nullopt when it never does in what ran.
std::optional<std::size_t> completes_on(const ExecutionRecord& ex, const AsyncAgent& copy,
                                        std::size_t from, ObjectId o) {
  const auto& trace = ex.trace();
  for (std::size_t k = from; k < trace.size(); ++k)
    if (trace[k].agent == copy.id && touch(trace[k].footprint, o) == Touch::give) return k;
  if (!copy.finished && touch(copy.pending().footprint, o) == Touch::give) return trace.size();
  return std::nullopt;
}

// The objects the copy completes on from its racing step on, in order.
std::vector<ObjectId> completion_objects(const ExecutionRecord& ex, const AsyncAgent& copy,
                                         std::size_t from) {
  std::vector<ObjectId> out;
  auto add = [&](const Footprint& fp) {
    for (const Access& a : fp)
      if (a.write && a.token >= 0 && touch(fp, a.object) == Touch::give &&
          std::find(out.begin(), out.end(), a.object) == out.end())
        out.push_back(a.object);
  };
  const auto& trace = ex.trace();
  for (std::size_t k = from; k < trace.size(); ++k)
    if (trace[k].agent == copy.id) add(trace[k].footprint);
  if (!copy.finished) add(copy.pending().footprint);
  return out;
}

// "X (step 3), Y (step 5)": who gave to `o` in (after, before), other than `thread`.
std::string givers(const ExecutionRecord& ex, ObjectId o, std::size_t after, std::size_t before,
                   AgentId thread) {
  std::string out;
  const auto& trace = ex.trace();
  for (std::size_t k = after; k < before; ++k) {
    if (trace[k].agent == thread || touch(trace[k].footprint, o) != Touch::give) continue;
    out += fmt::format("{}{} (step {})", out.empty() ? "" : ", ",
                       ex.agents()[index(trace[k].agent)]->name, k + 1);
  }
  return out;
}

}  // namespace

std::string misled_wait_hint(const ExecutionRecord& ex, const AsyncAgent& copy,
                             const AccessRecord& copy_side, const AccessRecord& thread_side) {
  const auto& trace = ex.trace();
  const AgentId thread = thread_side.agent;
  const std::size_t from = copy_side.step == 0 ? 0 : copy_side.step - 1;
  const std::size_t upto = std::min<std::size_t>(thread_side.step, trace.size());
  for (ObjectId o : completion_objects(ex, copy, from)) {
    std::optional<std::size_t> wait, earlier;  // the thread's last two steps on o
    for (std::size_t k = 0; k < upto; ++k)
      if (trace[k].agent == thread && touch(trace[k].footprint, o) != Touch::none)
        earlier = wait, wait = k;
    // A wait names what it waits on (wait_recv(sem), try_wait.parity(bar)).
    if (!wait || !trace[*wait].has_object || trace[*wait].object != o ||
        touch(trace[*wait].footprint, o) != Touch::observe)
      continue;
    std::optional<std::size_t> done = completes_on(ex, copy, from, o);
    if (done && *done < *wait) continue;  // the copy did complete before the wait
    // Who gave since the thread's previous step there; else (the wait saw a
    // phase completed before that step: an old parity) who gave at all.
    std::string who = givers(ex, o, earlier ? *earlier + 1 : 0, *wait, thread);
    if (who.empty()) who = givers(ex, o, 0, *wait, thread);
    if (who.empty()) continue;
    const std::string& name = ex.object_name(o);
    std::string when = done && *done < trace.size()
                           ? fmt::format("it completes on {} only at step {}", name, *done + 1)
                           : fmt::format("it had not completed on {}", name);
    return fmt::format(
        "hint: a wait satisfied by another completion: the wait on {} ({} at step {}) "
        "returned because {} signalled it; the copy this access meant ({}) was still in "
        "flight ({}); {} must wait for that copy's own completion: one semaphore or barrier "
        "phase per copy in flight, a wait that counts every copy signalling {}, or the "
        "parity of the phase that copy completes",
        name, ex.describe(trace[*wait].op, trace[*wait].object, trace[*wait].has_object),
        *wait + 1, who, copy.name, when, ex.agents()[index(thread)]->name, name);
  }
  return "";
}

}  // namespace heddle
