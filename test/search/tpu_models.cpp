// Small Pallas TPU models for the minimality tests: races whose shortest
// counterexample is a few remote-DMA steps among devices that do other work.
#include "models/tpu/tpu.hpp"

namespace {
using namespace heddle;
using namespace heddle::tpu;

// Four devices. Devices 1 and 2 both send into slot 1 of device 0 (the bug:
// device 2 should use slot 2); device 3 sends into slot 3. Device 0 waits
// its three receives, then reads; the senders wait their send sides.
const auto rdma_collide =
    kernel("search/rdma_collide", "two remote DMAs into one slot of a third device")
        .choice("dma_order", "any", dma_order_names(), "DMA completion policy")
        .body([](const Params& p) {
          auto& mesh = make<Mesh>(MeshConfig{4, 1, parse_dma_order(p.get("dma_order")), {}});
          auto in = hbm<int>("in", 1);
          auto buf = vmem<int>("buf", 4);
          auto send_sem = dma_semaphore("send_sem"), recv_sem = dma_semaphore("recv_sem");
          mesh.launch([=] {
            const std::uint32_t d = device_id();
            if (d == 0) {
              for (std::size_t k = 1; k < 4; ++k)
                make_async_remote_copy(in, buf.slice(k, 1), send_sem, recv_sem, 0u).wait_recv();
              (void)buf.load(1);
              return;
            }
            const std::size_t slot = d == 2 ? 1 : d;  // device 2 collides with device 1
            auto copy = make_async_remote_copy(in, buf.slice(slot, 1), send_sem, recv_sem, 0u);
            copy.start();
            copy.wait_send();
          });
        });

// Four devices in a ring, each sends its block to the right and waits both
// sides, except that device 1 reads its receive buffer before wait_recv.
// Devices 2 and 3 run their part of the ring; the race needs only device 0's
// DMA and device 1's early read.
const auto rdma_early_read =
    kernel("search/rdma_early_read", "a receiver reads before its remote DMA is waited")
        .choice("dma_order", "any", dma_order_names(), "DMA completion policy")
        .body([](const Params& p) {
          auto& mesh = make<Mesh>(MeshConfig{4, 1, parse_dma_order(p.get("dma_order")), {}});
          auto in = hbm<int>("in", 1), out = vmem<int>("out", 1);
          auto send_sem = dma_semaphore("send_sem"), recv_sem = dma_semaphore("recv_sem");
          mesh.launch([=] {
            const std::uint32_t d = device_id();
            auto copy = make_async_remote_copy(in, out, send_sem, recv_sem, (d + 1) % 4);
            copy.start();
            if (d == 1) (void)out.load(0);  // racy: before wait_recv
            copy.wait_send();
            copy.wait_recv();
          });
        });

}  // namespace
