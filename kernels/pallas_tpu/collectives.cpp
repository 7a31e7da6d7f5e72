// Simple, correct Pallas TPU collectives: right_permute, all_gather and
// all_reduce, written as in the Pallas distributed-computing guide. Each
// checks its outputs at kernel exit with real values.
#include <fmt/format.h>

#include "models/tpu/tpu.hpp"

namespace {
using namespace heddle;
using namespace heddle::tpu;

long mod(long a, long n) { return ((a % n) + n) % n; }
// The input value of device d (distinct per device, so a misplaced chunk shows).
int input_of(long d) { return static_cast<int>(10 * (d + 1)); }

Mesh& make_mesh(const Params& p) {
  return make<Mesh>(MeshConfig{static_cast<std::uint32_t>(p.get_int("devices")), 1,
                               parse_dma_order(p.get("dma_order")), {}});
}

// The neighbour handshake of the guide: tell both neighbours this device
// has entered the kernel, then wait until both have (barrier semaphore).
void handshake(long n) {
  const long d = device_id();
  auto barrier = get_barrier_semaphore();
  semaphore_signal(barrier, 1, static_cast<std::uint32_t>(mod(d - 1, n)));
  semaphore_signal(barrier, 1, static_cast<std::uint32_t>(mod(d + 1, n)));
  semaphore_wait(barrier, 2);
}

const Registration right_permute =
    kernel("pallas_tpu/right_permute", "each device sends its block to its right neighbour")
        .param("devices", 2, "devices in the ring", 2, 8)
        .flag("handshake", false, "barrier-semaphore handshake with both neighbours first")
        .choice("dma_order", "any", dma_order_names(), "DMA completion policy")
        .preset("default", {})
        .preset("8_devices", {{"devices", "8"}})
        .body([](const Params& p) {
          auto& mesh = make_mesh(p);
          const long n = p.get_int("devices");
          const bool hs = p.get_bool("handshake");
          auto in = hbm<int>("in", 1), out = hbm<int>("out", 1);
          auto send_sem = dma_semaphore("send_sem"), recv_sem = dma_semaphore("recv_sem");
          for (long d = 0; d < n; ++d) in.init(0, input_of(d), static_cast<std::uint32_t>(d));
          mesh.launch([=] {
            if (hs) handshake(n);
            auto right = static_cast<std::uint32_t>(mod(device_id() + 1, n));
            auto copy = make_async_remote_copy(in, out, send_sem, recv_sem, right);
            copy.start();
            copy.wait();
          });
          at_exit([=] {
            for (long d = 0; d < n; ++d) {
              int v = out.raw(0, static_cast<std::uint32_t>(d));
              observe(fmt::format("dev{}.out", d), std::to_string(v));
              check(v == input_of(mod(d - 1, n)),
                    fmt::format("dev{} out = {}, expected dev{}'s input", d, v, mod(d - 1, n)));
            }
          });
        });

// The guide's ring all-gather: grid step s forwards chunk (d - s) to the
// right, into the same index of the neighbour's output, with one receive
// semaphore per step (recv_sems.at[outer_step]).
const Registration all_gather =
    kernel("pallas_tpu/all_gather", "ring all-gather, one receive semaphore per step")
        .param("devices", 2, "devices in the ring", 2, 8)
        .choice("dma_order", "any", dma_order_names(), "DMA completion policy")
        .preset("default", {})
        .preset("8_devices", {{"devices", "8"}})
        .body([](const Params& p) {
          auto& mesh = make_mesh(p);
          const long n = p.get_int("devices");
          auto in = hbm<int>("in", 1);
          auto out = hbm<int>("out", static_cast<std::size_t>(n));
          auto local_sem = dma_semaphore("local_copy_sem"), send_sem = dma_semaphore("send_sem");
          auto recv_sems = dma_semaphores("recv_sems", static_cast<std::size_t>(n - 1));
          for (long d = 0; d < n; ++d) in.init(0, input_of(d), static_cast<std::uint32_t>(d));
          mesh.launch([=] {
            const long d = device_id();
            auto right = static_cast<std::uint32_t>(mod(d + 1, n));
            auto local = make_async_copy(in, out.slice(static_cast<std::size_t>(d), 1), local_sem);
            local.start();
            local.wait();
            grid(static_cast<std::uint32_t>(n - 1), [&](std::uint32_t step) {
              auto slot = static_cast<std::size_t>(mod(d - step, n));
              auto copy = make_async_remote_copy(out.slice(slot, 1), out.slice(slot, 1), send_sem,
                                                 recv_sems[step], right);
              copy.start();
              copy.wait();
            });
          });
          at_exit([=] {
            for (long d = 0; d < n; ++d)
              for (long j = 0; j < n; ++j) {
                int v = out.raw(static_cast<std::size_t>(j), static_cast<std::uint32_t>(d));
                observe(fmt::format("dev{}.out[{}]", d, j), std::to_string(v));
                check(v == input_of(j), fmt::format("dev{} out[{}] = {}, expected {}", d, j, v,
                                                    input_of(j)));
              }
          });
        });

// A one-shot all-reduce: every device sends its input into slot d of every
// other device's scratch (one receive semaphore per source), waits for all
// of them, then sums locally.
const Registration all_reduce =
    kernel("pallas_tpu/all_reduce", "one-shot all-reduce (sum), one receive semaphore per source")
        .param("devices", 2, "devices", 2, 8)
        .choice("dma_order", "any", dma_order_names(), "DMA completion policy")
        .preset("default", {})
        .body([](const Params& p) {
          auto& mesh = make_mesh(p);
          const long n = p.get_int("devices");
          auto in = hbm<int>("in", 1), out = hbm<int>("out", 1);
          auto scratch = vmem<int>("gathered", static_cast<std::size_t>(n));
          auto send_sem = dma_semaphore("send_sem");
          auto recv_sems = dma_semaphores("recv_sems", static_cast<std::size_t>(n));
          for (long d = 0; d < n; ++d) in.init(0, input_of(d), static_cast<std::uint32_t>(d));
          mesh.launch([=] {
            const long d = device_id();
            std::vector<AsyncRemoteCopy> copies;
            for (long k = 1; k < n; ++k) {
              auto to = static_cast<std::uint32_t>(mod(d + k, n));
              copies.push_back(make_async_remote_copy(
                  in, scratch.slice(static_cast<std::size_t>(d), 1), send_sem,
                  recv_sems[static_cast<std::size_t>(d)], to));
              copies.back().start();
            }
            int sum = in.load(0);
            for (long k = 1; k < n; ++k) {
              auto from = static_cast<std::size_t>(mod(d - k, n));
              // The descriptor of the copy *into* this device from `from`: its
              // wait_recv waits on recv_sems[from] here.
              copies[static_cast<std::size_t>(k - 1)].wait_send();
              make_async_remote_copy(in, scratch.slice(from, 1), send_sem, recv_sems[from],
                                     static_cast<std::uint32_t>(from))
                  .wait_recv();
              sum += scratch.load(from);
            }
            out.store(0, sum);
          });
          at_exit([=] {
            int total = 0;
            for (long d = 0; d < n; ++d) total += input_of(d);
            for (long d = 0; d < n; ++d) {
              int v = out.raw(0, static_cast<std::uint32_t>(d));
              observe(fmt::format("dev{}.out", d), std::to_string(v));
              check(v == total, fmt::format("dev{} out = {}, expected {}", d, v, total));
            }
          });
        });

}  // namespace
