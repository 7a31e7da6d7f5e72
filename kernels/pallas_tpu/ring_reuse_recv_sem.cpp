// pallas_tpu/ring_reuse_recv_sem: a unidirectional ring all-gather whose
// receive side is a circular buffer of `slots` slots in VMEM, guarded by a
// capacity semaphore (the receiver hands a slot back to its left neighbour
// once it has copied the chunk out). The bug of the seed
// (../shared/seeds/000_e9b062507316067a.txt): all steps share ONE receive
// semaphore. With two remote DMAs into one receiver in flight, the later
// one can complete first and signal the shared semaphore; the receiver's
// wait for the earlier step returns, and it reads a slot the earlier DMA
// has not written yet. The fix (`fixed=true`) gives each slot its own
// receive semaphore, so a wait can only be satisfied by the DMA into the
// slot it reads (the capacity semaphore keeps one DMA per slot in flight).
#include <fmt/format.h>

#include "models/tpu/tpu.hpp"

namespace {
using namespace heddle;
using namespace heddle::tpu;

// The value device `owner` contributes at element i of its chunk.
int chunk_value(long owner, long i) { return static_cast<int>(100 * (owner + 1) + i); }

long mod(long a, long n) { return ((a % n) + n) % n; }

void ring_body(Ref<int> out, Ref<int> slots, Sem send_sem, std::vector<Sem> recv_sems,
               Sem capacity, long n, long steps, long nslots, long chunk) {
  const long d = device_id();
  const long right = mod(d + 1, n), left = mod(d - 1, n);
  for (long s = 0; s < steps; ++s) {
    const long slot = s % nslots;
    // Slots 0..nslots-1 start free; a later step needs its slot back.
    if (s >= nslots) semaphore_wait(capacity, 1);
    const Sem& recv = recv_sems[static_cast<std::size_t>(slot) % recv_sems.size()];
    auto send = out.slice(mod(d - s, n) * chunk, chunk);
    auto dma = make_async_remote_copy(send, slots.slice(slot * chunk, chunk), send_sem, recv,
                                      static_cast<std::uint32_t>(right));
    dma.start();
    dma.wait_recv();  // the chunk of step s from the left is in my slot, or so I believe
    const long got = mod(d - 1 - s, n);
    for (long i = 0; i < chunk; ++i)
      out.store(got * chunk + i, slots.load(slot * chunk + i));  // read the received slot
    if (s + nslots < steps) semaphore_signal(capacity, 1, static_cast<std::uint32_t>(left));
    dma.wait_send();
  }
}

const Registration ring =
    kernel("pallas_tpu/ring_reuse_recv_sem",
           "ring all-gather reusing one receive semaphore across steps (seed 000)")
        .param("devices", 3, "devices in the ring", 3, 8)
        .param("steps", 2, "ring steps (devices-1 gathers everything)", 1, 7)
        .param("slots", 2, "receive buffer slots", 1, 3)
        .param("chunk", 1, "elements per chunk", 1, 4)
        .flag("fixed", false, "one receive semaphore per slot instead of one shared")
        .choice("dma_order", "any", dma_order_names(),
                "DMA completion: any order (explored), eager or on_wait (JAX interpret modes)")
        .preset("buggy", {{"fixed", "false"}}, Verdict::race)
        .preset("fixed", {{"fixed", "true"}})
        .preset("fixed_4_devices", {{"fixed", "true"}, {"devices", "4"}, {"steps", "3"}})
        .preset("buggy_8_devices", {{"fixed", "false"}, {"devices", "8"}, {"steps", "7"}},
                Verdict::race)
        .preset("buggy_eager", {{"fixed", "false"}, {"dma_order", "eager"}})
        .preset("buggy_on_wait", {{"fixed", "false"}, {"dma_order", "on_wait"}}, Verdict::race)
        .body([](const Params& p) {
          const long n = p.get_int("devices"), steps = p.get_int("steps");
          const long nslots = p.get_int("slots"), chunk = p.get_int("chunk");
          if (steps >= n) throw ModelError("steps must be below devices (a chunk goes round once)");
          auto& mesh = make<Mesh>(MeshConfig{static_cast<std::uint32_t>(n), 1,
                                             parse_dma_order(p.get("dma_order")), {}});
          auto out = hbm<int>("out", static_cast<std::size_t>(n * chunk));
          auto slots = vmem<int>("recv_buf", static_cast<std::size_t>(nslots * chunk));
          auto send_sem = dma_semaphore("send_sem");
          auto recv_sems = p.get_bool("fixed")
                               ? dma_semaphores("recv_sem", static_cast<std::size_t>(nslots))
                               : std::vector<Sem>{dma_semaphore("recv_sem")};
          auto capacity = semaphore("capacity");
          for (long d = 0; d < n; ++d)
            for (long i = 0; i < chunk; ++i)
              out.init(d * chunk + i, chunk_value(d, i), static_cast<std::uint32_t>(d));
          mesh.launch([=] { ring_body(out, slots, send_sem, recv_sems, capacity, n, steps, nslots, chunk); });
          at_exit([=] {
            // Device d holds its own chunk and the `steps` chunks to its left.
            for (long d = 0; d < n; ++d)
              for (long k = 0; k <= steps; ++k)
                for (long i = 0; i < chunk; ++i) {
                  long owner = mod(d - k, n);
                  int v = out.raw(owner * chunk + i, static_cast<std::uint32_t>(d));
                  check(v == chunk_value(owner, i),
                        fmt::format("dev{} out[{}] = {}, expected {} (chunk of dev{})", d,
                                    owner * chunk + i, v, chunk_value(owner, i), owner));
                }
          });
        });

}  // namespace
