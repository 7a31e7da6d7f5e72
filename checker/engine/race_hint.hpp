// What would order two racing accesses, said in one line (checker/DESIGN.md
// § Counterexamples: a race report says what ordering is missing).
#pragma once
#include <string>

#include "checker/engine/access_record.hpp"
#include "checker/engine/ids.hpp"

namespace heddle {

class ExecutionRecord;

/// Names the proxy fence that orders generic accesses before `p`-proxy ones,
/// in the model's words (models call it once, e.g. "fence.proxy.async
/// (fence_view_async_shared)"); hints use it.
void name_proxy_fence(Proxy p, std::string words);
/// The name set by name_proxy_fence, or "a proxy fence for the P proxy".
std::string proxy_fence_name(Proxy p);

/// The one hint for a race between `prior` (earlier) and `now` (the running
/// agent's access) in execution `ex`: a missing proxy fence (the accesses are
/// ordered, but not for `now`'s proxy: `clock_orders`), a missing wait for a
/// copy still in flight, or missing synchronization (a barrier or semaphore).
std::string race_hint(const ExecutionRecord& ex, const AccessRecord& prior, bool prior_write,
                      const AccessRecord& now, bool now_write, bool clock_orders);

}  // namespace heddle
