// Everything a kernel model needs: include this one header.
#pragma once
#include <functional>
#include <source_location>
#include <string>

#include "checker/engine/execution.hpp"
#include "checker/engine/memory.hpp"
#include "checker/engine/primitives.hpp"
#include "checker/registry.hpp"

namespace heddle {

/// Starts a kernel thread named `name` running `body` (from setup or a thread).
inline AgentId spawn(std::string_view name, std::function<void()> body) {
  return Execution::current().spawn(name, std::move(body));
}

/// Allocates a model object owned by the current execution.
template <class T, class... A>
T& make(A&&... args) {
  return Execution::current().make<T>(std::forward<A>(args)...);
}

/// A named buffer of `n` elements, initialised to `init` (host contents).
template <class T>
Buffer<T> buffer(std::string name, std::size_t n, T init = T{}) {
  return Buffer<T>(make<Region>(std::move(name), sizeof(T), n, &init));
}

/// Builds an async phase; its main object (for schedules) is the first one
/// of `footprint`. `enabled` empty: the phase can run as soon as it is next.
inline Phase phase(const char* name, Footprint footprint, std::function<void()> effect,
                   std::function<bool()> enabled = {}) {
  Phase p;
  p.name = name;
  if (!footprint.empty()) {
    p.object = footprint.front().object;
    p.has_object = true;
  }
  p.footprint = std::move(footprint);
  p.effect = std::move(effect);
  p.enabled = std::move(enabled);
  return p;
}

/// The footprint entry of a whole region, written or read.
inline Access touches(const Region& r, bool write) {
  return Access{r.id(), 0, static_cast<std::uint32_t>(r.size() * r.elem_size()), write};
}

/// The footprint entry of a sync object, modified or only read.
inline Access touches(const SyncObject& o, bool write) { return Access{o.id(), 0, 1, write}; }

/// Issues an async agent with the given phases, on behalf of the running thread.
inline AgentId issue(std::string_view name, std::vector<Phase> phases,
                     std::source_location loc = std::source_location::current()) {
  return Execution::current().issue(name, std::move(phases), loc);
}

/// Records part of the final state (compared across executions by tests).
inline void observe(std::string key, std::string value) {
  Execution::current().observe(std::move(key), std::move(value));
}

/// A line the run report prints once (say how an option restricts exploration).
inline void note(std::string text) { Execution::current().note(std::move(text)); }

/// Says that an option of the model leaves executions unexplored (e.g. a
/// restricted DMA completion order): noted once, and no verdict of the run
/// says "exhaustive" or "verified".
inline void restrict_exploration(std::string text) {
  Execution::current().restrict_exploration(std::move(text));
}

/// A nondeterministic data choice in [0, n), explored like a scheduling choice.
inline std::uint32_t choose(std::uint32_t n) { return Execution::current().choose(n); }

/// Runs `fn` at kernel exit, after every agent is done (exit checks, results).
inline void at_exit(std::function<void()> fn,
                    std::source_location loc = std::source_location::current()) {
  Execution::current().on_exit(std::move(fn), loc);
}

}  // namespace heddle
