// pallas_tpu/sync_copy_handoff: the two cores of one chip combine partial
// results through HBM. Each core sync_copies its half of x into VMEM and
// doubles it; core 0 sync_copies its partial to the shared HBM buffer
// `partial` and signals `ready` on core 1 (semaphore_signal(..., core_index
// = 1)); core 1 waits, sync_copies `partial` in, adds its own and writes
// out. pltpu.sync_copy returns once its DMA has landed, so core 0 may
// overwrite its VMEM source right after it. Bugs (`bug=`): signal_early
// signals before the copy (core 1's copy reads `partial` while core 0's
// DMA writes it: a race); own_core signals core 0's own `ready` (no
// core_index), so core 1 waits for ever (a deadlock).
#include <fmt/format.h>

#include "models/tpu/tpu.hpp"

namespace {
using namespace heddle;
using namespace heddle::tpu;

int input_of(std::size_t i) { return static_cast<int>(i + 1); }

// Core 0: publish the partial, then tell core 1 (or, with a bug, not quite).
void publish(const Ref<int>& mine, const Ref<int>& partial, const Sem& ready,
             const std::string& bug) {
  if (bug == "signal_early") semaphore_signal(ready, 1, std::nullopt, 1u);
  sync_copy(mine, partial);
  mine.store(0, -1);  // reuse the VMEM source at once: the copy has read it
  if (bug == "none") semaphore_signal(ready, 1, std::nullopt, 1u);  // core 1 of this device
  if (bug == "own_core") semaphore_signal(ready, 1);                // core 0's own semaphore
}

// Core 1: wait for core 0's partial, add it to its own, write out.
void combine(const Ref<int>& mine, const Ref<int>& theirs, const Ref<int>& partial,
             const Ref<int>& out, const Sem& ready, std::size_t n) {
  semaphore_wait(ready, 1);
  sync_copy(partial, theirs);
  for (std::size_t i = 0; i < n; ++i) mine.store(i, mine.load(i) + theirs.load(i));
  sync_copy(mine, out);
}

const Registration handoff =
    kernel("pallas_tpu/sync_copy_handoff", "two cores hand a partial result over HBM")
        .param("elems", 2, "elements per core", 1, 3)
        .choice("bug", "none", {"none", "signal_early", "own_core"},
                "signal core 1 before the copy, or signal core 0's own semaphore")
        .choice("dma_order", "any", dma_order_names(), "DMA completion policy")
        .preset("correct", {})
        .preset("signal_early", {{"bug", "signal_early"}}, Verdict::race)
        .preset("own_core", {{"bug", "own_core"}}, Verdict::deadlock)
        .body([](const Params& p) {
          const auto n = static_cast<std::size_t>(p.get_int("elems"));
          const std::string bug = p.get("bug");
          auto& mesh = make<Mesh>(MeshConfig{1, 2, parse_dma_order(p.get("dma_order")), {}});
          auto x = hbm<int>("x", 2 * n), partial = hbm<int>("partial", n);
          auto out = hbm<int>("out", n);
          auto mine = vmem<int>("mine", n), theirs = vmem<int>("theirs", n);
          auto ready = semaphore("ready");
          for (std::size_t i = 0; i < 2 * n; ++i) x.init(i, input_of(i), 0);
          mesh.launch([=] {
            const auto c = core_id();
            sync_copy(x.slice(c * n, n), mine);
            for (std::size_t i = 0; i < n; ++i) mine.store(i, 2 * mine.load(i));
            if (c == 0)
              publish(mine, partial, ready, bug);
            else
              combine(mine, theirs, partial, out, ready, n);
          });
          at_exit([=] {
            for (std::size_t i = 0; i < n; ++i) {
              int v = out.raw(i, 0), want = 2 * (input_of(i) + input_of(n + i));
              observe(fmt::format("out[{}]", i), std::to_string(v));
              check(v == want, fmt::format("out[{}] = {}, expected {}", i, v, want));
            }
          });
        });

}  // namespace
