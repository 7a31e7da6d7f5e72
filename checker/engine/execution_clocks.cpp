// The clock effects of a step: acquire, release and the proxy fences
// (checker/DESIGN.md § Happens-before and races, § Proxies and tensormaps).
#include "checker/engine/execution.hpp"

namespace heddle {

// acquire, release and acquire_release first try the common case with no
// call, so no registers to save: an agent's step, both clocks inline, no
// commit clock set on either side.
inline Agent* Execution::plain_clocks(const SyncClock& s) const noexcept {
  Agent* a = now_.running;
  if (a == nullptr || !a->clock.inline_only() || !s.clock.inline_only() || a->commit.any_set() ||
      s.commit.any_set() || index(a->id) >= VectorClock::kInline) [[unlikely]]
    return nullptr;
  return a;
}

void Execution::acquire(const SyncClock& s) {
  if (Agent* a = plain_clocks(s)) [[likely]] {
    a->clock.join_inline(s.clock);
    return;
  }
  acquire_slow(s);
}

void Execution::acquire_slow(const SyncClock& s) {
  Agent& a = effect_agent();
  a.clock.join(s.clock);
  a.commit.join(s.commit);
}

void Execution::release(SyncClock& s) {
  if (Agent* a = plain_clocks(s)) [[likely]] {
    s.clock.join_inline(a->clock);
    a->clock.tick_inline(a->id);
    return;
  }
  release_slow(s);
}

void Execution::release_slow(SyncClock& s) {
  Agent& a = effect_agent();
  s.clock.join(a.clock);
  s.commit.join(a.commit);
  tick_after(a);
}

void Execution::acquire_release(SyncClock& s) {
  if (Agent* a = plain_clocks(s)) [[likely]] {
    a->clock.join_both_inline(s.clock);
    a->clock.tick_inline(a->id);
    return;
  }
  acquire_release_slow(s);
}

void Execution::acquire_release_slow(SyncClock& s) {
  Agent& a = effect_agent();
  // The agent's clock covers s's after the acquire: the release's join is a copy.
  a.clock.join_both(s.clock);
  a.commit.join(s.commit);
  s.commit.join(a.commit);
  tick_after(a);
}

void Execution::proxy_fence() {
  Agent& a = effect_agent();
  a.commit.fence_all(a.clock);
  tick_after(a);
}

void Execution::proxy_fence(Proxy p) {
  if (p == Proxy::generic) return;  // the generic proxy needs no fence
  Agent& a = effect_agent();
  a.commit[p] = a.clock;
  tick_after(a);
}

void Execution::proxy_release(Proxy p) {
  if (p == Proxy::generic) return;
  Agent& a = effect_agent();
  a.commit.released_to(p) = a.clock;
  tick_after(a);
}

void Execution::proxy_acquire(Proxy p) {
  if (p == Proxy::generic) return;
  Agent& a = effect_agent();
  a.commit[p].join(a.commit.released_to(p));
  tick_after(a);
}

}  // namespace heddle
