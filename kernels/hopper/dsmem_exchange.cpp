// hopper/dsmem_exchange: each CTA of a cluster stores a value into the
// shared memory of the next rank (distributed shared memory: st.shared::cluster
// through a mapa address), synchronizes, and reads what the previous rank
// sent it. Orderings: `fixed` uses barrier.cluster.arrive.release +
// barrier.cluster.wait.acquire (cute::cluster_sync()); `mbarrier` arrives on
// the receiver's mbarrier (mbarrier.arrive.release.cluster.shared::cluster
// on the mapa address) and the receiver waits its own. Bugs: `relaxed`
// (barrier.cluster.arrive.relaxed orders nothing), `no_wait` (the receiver
// reads between arrive and wait), `mbarrier_local` (the sender arrives on
// its own CTA's mbarrier, not the receiver's). Every variant ends with a
// cluster sync, so no CTA exits while a peer may still access its memory.
#include <fmt/format.h>

#include "models/gpu/gpu.hpp"

namespace {
using namespace heddle;
using namespace heddle::gpu;

int sent_by(int rank) { return 100 + rank; }

void exchange(const std::string& variant, const ThreadInfo& t, int ctas, const Shared<int>& inbox,
              const PerCta<Mbarrier*>& got, const View<int>& out) {
  const int next = (t.rank + 1) % ctas;
  inbox.peer(next).store(0, sent_by(t.rank));  // DSMEM store through mapa
  if (variant == "mbarrier" || variant == "mbarrier_local") {
    // mbarrier_local: bug, the local address instead of mapa(bar, next).
    (variant == "mbarrier" ? got.peer(next) : got.local())->arrive();
    got.local()->wait_parity(0);
  } else if (variant == "no_wait") {
    barrier_cluster_arrive();
  } else {
    barrier_cluster_arrive(variant == "relaxed" ? ClusterArrive::relaxed : ClusterArrive::release);
    barrier_cluster_wait();
  }
  View<int> mine = inbox;
  out.store(static_cast<std::size_t>(t.cta), mine.load(0));
  if (variant == "no_wait") barrier_cluster_wait();  // bug: after the read
  cluster_sync();  // no CTA exits while a peer may still access its shared memory
}

const Registration dsmem_exchange =
    kernel("hopper/dsmem_exchange",
           "each CTA stores into the next rank's shared memory (DSMEM), then synchronizes")
        .param("ctas", 2, "CTAs in the cluster", 2, 3)
        .choice("variant", "fixed", {"fixed", "mbarrier", "relaxed", "no_wait", "mbarrier_local"},
                "fixed: barrier.cluster arrive.release/wait.acquire; mbarrier: remote arrive on "
                "the receiver's mbarrier; relaxed: arrive.relaxed; no_wait: the read before "
                "barrier.cluster.wait; mbarrier_local: the sender arrives on its own mbarrier")
        .preset("fixed", {{"variant", "fixed"}})
        .exhaustive()
        .preset("mbarrier", {{"variant", "mbarrier"}})
        .exhaustive()
        .preset("relaxed", {{"variant", "relaxed"}}, Verdict::race)
        .preset("no_wait", {{"variant", "no_wait"}}, Verdict::race)
        .preset("mbarrier_local", {{"variant", "mbarrier_local"}}, Verdict::race)
        .body([](const Params& p) {
          const int ctas = static_cast<int>(p.get_int("ctas"));
          const std::string variant = p.get("variant");
          grid(LaunchConfig{ctas, ctas, {{"t0"}}});
          auto inbox = shared<int>("inbox", 1);
          auto got = per_cta<Mbarrier>("got", std::uint32_t{1});
          auto out = global<int>("out", static_cast<std::size_t>(ctas));
          current_grid().launch([=](const ThreadInfo& t) { exchange(variant, t, ctas, inbox, got, out); });
          at_exit([=] {
            for (int c = 0; c < ctas; ++c) {
              const int want = sent_by((c + ctas - 1) % ctas);
              observe(fmt::format("out{}", c), std::to_string(out.raw(static_cast<std::size_t>(c))));
              check(out.raw(static_cast<std::size_t>(c)) == want,
                    fmt::format("CTA {} received {}, expected {}", c, out.raw(static_cast<std::size_t>(c)), want));
            }
          });
        });

}  // namespace
