#include "checker/engine/race_hint.hpp"

#include <fmt/format.h>

#include <array>

#include "checker/engine/execution.hpp"
#include "checker/engine/misled_wait.hpp"

namespace heddle {
namespace {

std::array<std::string, 3>& fence_names() {
  static std::array<std::string, 3> names;
  return names;
}

const Agent& agent_of(const ExecutionRecord& ex, AgentId id) { return *ex.agents()[index(id)]; }

const AsyncAgent* as_copy(const Agent& a) {
  return a.kind == Agent::Kind::async ? static_cast<const AsyncAgent*>(&a) : nullptr;
}

std::string issue_step(const AsyncAgent& c) {
  return c.created_by < 0 ? std::string("before step 1")
                          : fmt::format("during step {}", c.created_by + 1);
}

// "at step 3", or "before step 1" for code that ran before the agent's
// first visible operation.
std::string at_step(std::uint32_t step) {
  return step == 0 ? std::string("before step 1") : fmt::format("at step {}", step);
}

// "store (write) at step 3": one access in words.
std::string access_words(const AccessRecord& r, bool write) {
  return fmt::format("{} ({}) {}", r.op, write ? "write" : "read", at_step(r.step));
}

// The first visible operation of agent `who` after step `step`: where the
// synchronization that orders its earlier accesses starts.
std::string next_operation(const ExecutionRecord& ex, AgentId who, std::uint32_t step) {
  const auto& trace = ex.trace();
  for (std::size_t i = step; i < trace.size(); ++i)
    if (trace[i].agent == who)
      return fmt::format("{} at step {}", ex.describe(trace[i].op, trace[i].object,
                                                      trace[i].has_object),
                         i + 1);
  return "";
}

// The generic access is ordered before the other-proxy one, but only for
// the generic proxy: a proxy fence is missing (checker/DESIGN.md § Proxies and tensormaps).
std::string fence_hint(const ExecutionRecord& ex, const AccessRecord& prior, bool prior_write,
                       const AccessRecord& now) {
  const Agent& writer = agent_of(ex, prior.agent);
  const Agent& reader = agent_of(ex, now.agent);
  const AsyncAgent* copy = as_copy(reader);
  const std::string fence = proxy_fence_name(now.proxy);
  std::string who;
  if (copy != nullptr && copy->issuer == writer.id) {
    who = fmt::format("{} must run {} after its {} and before it issues {} ({})", writer.name,
                      fence, access_words(prior, prior_write), copy->name, issue_step(*copy));
  } else {
    std::string sync = next_operation(ex, writer.id, prior.step);
    who = fmt::format("{} must run {} after its {}{}", writer.name, fence,
                      access_words(prior, prior_write), sync.empty() ? "" : " and before " + sync);
    if (copy != nullptr)
      who += fmt::format(", or {} after that and before it issues {} ({})",
                         agent_of(ex, copy->issuer).name, copy->name, issue_step(*copy));
    else
      who += fmt::format(", or {} before its access {}", reader.name, at_step(now.step));
  }
  return fmt::format("hint: a missing proxy fence: synchronization orders the generic-proxy "
                     "access before the {}-proxy one, but not for the {} proxy; {}",
                     proxy_name(now.proxy), proxy_name(now.proxy), who);
}

// One side is a copy its issuer (the other side) had not waited for.
std::string wait_hint(const ExecutionRecord& ex, const AsyncAgent& copy,
                      const AccessRecord& copy_side, bool copy_writes,
                      const AccessRecord& thread_side) {
  const Agent& issuer = agent_of(ex, copy.issuer);
  std::string how = copy.wait_hint ? copy.wait_hint(copy_writes, thread_side.time)
                                   : std::string("wait for its completion");
  return fmt::format("hint: a missing wait: {} accessed these bytes {} without waiting "
                     "for {} (issued at {}, {}), which {} them ({}); {} must {} before that "
                     "access",
                     issuer.name, at_step(thread_side.step), copy.name, where(copy.loc),
                     issue_step(copy),
                     copy_writes ? "writes" : "reads", copy_side.op, issuer.name, how);
}

// What releases a copy's access to another thread than its issuer: the
// issuer waits for the copy (in the model's words, e.g. wait_group.read for
// a TMA store's source), then a barrier orders the other thread after that
// wait (issue 50.19: "its completion must be signalled" named no one).
std::string copy_release(const ExecutionRecord& ex, const AsyncAgent& copy, bool copy_writes,
                         const Agent& other) {
  const Agent& issuer = agent_of(ex, copy.issuer);
  const std::string how = copy.wait_hint ? copy.wait_hint(copy_writes, issuer.clock[issuer.id])
                                         : std::string("wait for its completion");
  return fmt::format("{} must wait for {} first: {}; then {} must release (arrive on a barrier, "
                     "signal a semaphore) after that wait, so that the barrier orders {} after it",
                     issuer.name, copy.name, how, issuer.name, other.name);
}

// Nothing orders the two accesses: a barrier or semaphore between them is missing.
std::string sync_hint(const ExecutionRecord& ex, const AccessRecord& prior, bool prior_write,
                      const AccessRecord& now) {
  const Agent& first = agent_of(ex, prior.agent);
  const Agent& second = agent_of(ex, now.agent);
  std::string partial;
  const AsyncAgent* late_copy = as_copy(second);
  if (late_copy == nullptr && second.clock[first.id] >= 1 && first.kind == Agent::Kind::thread)
    partial = fmt::format(" ({} does synchronize with {}, but only with what {} did before "
                          "this access: its release comes too early)",
                          second.name, first.name, first.name);
  std::string release = fmt::format("{} must release (signal a semaphore, arrive on a barrier) "
                                    "after its access {}",
                                    first.name, at_step(prior.step));
  if (const AsyncAgent* copy = as_copy(first)) release = copy_release(ex, *copy, prior_write, second);
  // A copy runs with its issuer's clock at the issue: the issuer must wait first.
  std::string acquire =
      late_copy == nullptr
          ? fmt::format("{} must wait for it before its access {}", second.name, at_step(now.step))
          : fmt::format("{} must wait for it before it issues {} ({})",
                        agent_of(ex, late_copy->issuer).name, late_copy->name,
                        issue_step(*late_copy));
  return fmt::format("hint: a missing barrier or semaphore: nothing orders {}'s access before "
                     "{}'s{}; {}, and {}",
                     first.name, second.name, partial, release, acquire);
}

// A thread raced with a copy another thread had issued before the access:
// ordering the access before the issue is no fix (the issue came first);
// the issuer's wait for the copy, then a barrier, is (issue 50.19).
std::string in_flight_hint(const ExecutionRecord& ex, const AccessRecord& prior,
                           const AsyncAgent& copy, bool copy_writes) {
  const Agent& thread = agent_of(ex, prior.agent);
  return fmt::format("hint: a missing barrier or semaphore: {} was in flight (issued at {}, {}) "
                     "when {} accessed these bytes {}; {}, and {} must wait for it before its "
                     "access {}",
                     copy.name, where(copy.loc), issue_step(copy), thread.name,
                     at_step(prior.step), copy_release(ex, copy, copy_writes, thread), thread.name,
                     at_step(prior.step));
}

// True when `copy` was issued before the step of access `r`.
bool issued_before(const AsyncAgent& copy, const AccessRecord& r) {
  return copy.created_by < 0 || static_cast<std::uint32_t>(copy.created_by) + 1 < r.step;
}

}  // namespace

void name_proxy_fence(Proxy p, std::string words) {
  fence_names()[static_cast<std::size_t>(p)] = std::move(words);
}

std::string proxy_fence_name(Proxy p) {
  const std::string& n = fence_names()[static_cast<std::size_t>(p)];
  return n.empty() ? fmt::format("a proxy fence for the {} proxy", proxy_name(p)) : n;
}

std::string race_hint(const ExecutionRecord& ex, const AccessRecord& prior, bool prior_write,
                      const AccessRecord& now, bool now_write, bool clock_orders) {
  if (clock_orders && prior.proxy == Proxy::generic && now.proxy != Proxy::generic)
    return fence_hint(ex, prior, prior_write, now);
  const Agent& a = agent_of(ex, prior.agent);
  const Agent& b = agent_of(ex, now.agent);
  // A thread that did wait, but on a completion another copy supplied.
  if (const AsyncAgent* c = as_copy(a); c != nullptr && b.kind == Agent::Kind::thread)
    if (std::string h = misled_wait_hint(ex, *c, prior, now); !h.empty()) return h;
  if (const AsyncAgent* c = as_copy(b); c != nullptr && a.kind == Agent::Kind::thread)
    if (std::string h = misled_wait_hint(ex, *c, now, prior); !h.empty()) return h;
  if (const AsyncAgent* c = as_copy(a); c != nullptr && c->issuer == b.id)
    return wait_hint(ex, *c, prior, prior_write, now);
  if (const AsyncAgent* c = as_copy(b); c != nullptr && c->issuer == a.id)
    return wait_hint(ex, *c, now, now_write, prior);
  const AsyncAgent* ca = as_copy(a);
  const AsyncAgent* cb = as_copy(b);
  if (ca != nullptr && cb != nullptr && ca->issuer == cb->issuer)
    return fmt::format("hint: a missing wait: {} and {} were both in flight and both access "
                       "these bytes; {} must {} before it issues {} ({})",
                       ca->name, cb->name, agent_of(ex, ca->issuer).name,
                       ca->wait_hint ? ca->wait_hint(prior_write, cb->clock[ca->issuer])
                                     : fmt::format("wait for {}", ca->name),
                       cb->name, issue_step(*cb));
  if (cb != nullptr && ca == nullptr && issued_before(*cb, prior))
    return in_flight_hint(ex, prior, *cb, now_write);
  return sync_hint(ex, prior, prior_write, now);
}

}  // namespace heddle
