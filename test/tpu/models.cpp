// Test-only Pallas TPU models: kernels that leave DMAs unwaited and
// semaphores non-zero at exit, and a semaphore handshake.
#include "models/tpu/tpu.hpp"

namespace {
using namespace heddle;
using namespace heddle::tpu;

// Two devices. Each sends its block to the other and waits only the send
// side (wait_recv is missing); device 0 also starts a local copy it never
// waits, and signals a regular semaphore on device 1 that nobody waits.
const auto leaky = kernel("test/tpu_leaky", "DMAs never waited and semaphores left non-zero")
    .flag("wait_recv", false, "wait the receive side of the remote copies")
    .flag("local_wait", false, "wait the local copy")
    .flag("extra_signal", true, "signal a semaphore nobody waits")
    .choice("dma_order", "any", dma_order_names(), "DMA completion policy")
    .body([](const Params& p) {
      auto& mesh = make<Mesh>(MeshConfig{2, 1, parse_dma_order(p.get("dma_order")), {}});
      const bool wr = p.get_bool("wait_recv"), lw = p.get_bool("local_wait");
      const bool extra = p.get_bool("extra_signal");
      auto in = hbm<int>("in", 1), out = hbm<int>("out", 1), tmp = vmem<int>("tmp", 1);
      auto send_sem = dma_semaphore("send_sem"), recv_sem = dma_semaphore("recv_sem");
      auto local_sem = dma_semaphore("local_sem");
      auto flag = semaphore("flag");
      mesh.launch([=] {
        auto other = 1 - device_id();
        auto copy = make_async_remote_copy(in, out, send_sem, recv_sem, other);
        copy.start();  // remote copy start
        copy.wait_send();
        if (wr) copy.wait_recv();
        if (device_id() == 0) {
          auto local = make_async_copy(in, tmp, local_sem);
          local.start();  // local copy start
          if (lw) local.wait();
          if (extra) semaphore_signal(flag, 1, 1u);  // signal nobody waits
        }
      });
    });

// A neighbour handshake on the barrier semaphore, a remote regular signal
// and a semaphore_read: the receiver reads the flag's data only after the
// wait, so there is no race; without the wait there is one.
const auto handshake = kernel("test/tpu_signal", "data published through a remote semaphore signal")
    .flag("wait", true, "wait the semaphore before reading")
    .body([](const Params& p) {
      auto& mesh = make<Mesh>(MeshConfig{2, 1, DmaOrder::any, {}});
      const bool wait = p.get_bool("wait");
      auto data = hbm<int>("data", 1);
      auto ready = semaphore("ready");
      mesh.launch([=] {
        auto barrier = get_barrier_semaphore();
        semaphore_signal(barrier, 1, 1u - device_id());
        semaphore_wait(barrier, 1);
        if (device_id() == 0) {
          data.at_device(1).store(0, 42);  // a plain write into the other device's HBM
          semaphore_signal(ready, 2, 1u);
        } else {
          if (wait) {
            semaphore_wait(ready, 1);
            check(semaphore_read(ready) == 1, "one unit of the signal is left");
            semaphore_wait(ready, 1);
          }
          int v = data.load(0);  // read after the wait
          if (wait) check(v == 42, "the signal published the data");
          if (!wait) semaphore_wait(ready, 2);
        }
      });
    });

// One device with two cores: each core copies its element of the shared
// HBM input into its own VMEM and writes it back doubled; core 0 then
// signals core 1 (core_index), which reads core 0's output.
const auto cores = kernel("test/tpu_cores", "two cores of one device share HBM")
    .flag("sync", true, "core 1 waits for core 0's signal before reading its output")
    .body([](const Params& p) {
      auto& mesh = make<Mesh>(MeshConfig{1, 2, DmaOrder::any, {}});
      const bool sync = p.get_bool("sync");
      auto x = hbm<int>("x", 2), out = hbm<int>("out", 2), tmp = vmem<int>("tmp", 1);
      auto copy_sem = dma_semaphore("copy_sem");
      auto done = semaphore("done");
      x.init(0, 5, 0);
      x.init(1, 7, 0);
      mesh.launch([=] {
        const auto c = core_id();
        auto copy = make_async_copy(x.slice(c, 1), tmp, copy_sem);
        copy.start();
        copy.wait();
        out.store(c, 2 * tmp.load(0));
        if (c == 0) {
          semaphore_signal(done, 1, 0u, 1u);  // to core 1 of device 0
        } else {
          if (sync) semaphore_wait(done, 1);
          observe("core1 sees out[0]", std::to_string(out.load(0)));  // core 0's output
          if (!sync) semaphore_wait(done, 1);
        }
      });
      at_exit([=] {
        check(out.raw(0, 0) == 10 && out.raw(1, 0) == 14, "each core doubled its element");
      });
    });

// Waits for more than one unit: core 0 starts DMAs of 1, 2 and 3 elements
// (4, 8 and 12 bytes) on one DMA semaphore and signals core 1 twice (2 and
// 1 units); core 1 waits for 3 units at once. Each side records the count
// it reads after its first wait, which depends on what landed before: a
// reversal that moves a wait before a signal it does not need is explored,
// one that moves it before a signal it needs is not (dpor::token_available).
const auto amounts = kernel("test/tpu_amounts", "waits and signals of several units")
    .choice("dma_order", "any", dma_order_names(), "DMA completion policy")
    .body([](const Params& p) {
      auto& mesh = make<Mesh>(MeshConfig{1, 2, parse_dma_order(p.get("dma_order")), {}});
      auto src = hbm<int>("src", 6), dst = vmem<int>("dst", 6);
      auto sem = dma_semaphore("sem");
      auto units = semaphore("units");
      mesh.launch([=] {
        if (core_id() == 0) {
          auto a = make_async_copy(src.slice(0, 1), dst.slice(0, 1), sem);
          auto b = make_async_copy(src.slice(1, 2), dst.slice(1, 2), sem);
          auto c = make_async_copy(src.slice(3, 3), dst.slice(3, 3), sem);
          a.start();
          b.start();
          c.start();
          semaphore_signal(units, 2, 0u, 1u);
          b.wait();  // 8 bytes: b alone, c alone, or a with another
          observe("dma bytes left", std::to_string(semaphore_read(sem)));
          semaphore_signal(units, 1, 0u, 1u);
          c.wait();
          a.wait();
        } else {
          semaphore_wait(units, 3);
          observe("units left", std::to_string(semaphore_read(units)));
        }
      });
    });

// One core starts `copies` one-element DMAs on one semaphore and waits
// them one by one, as the all-reduce's device waits its n-1 sends. Which
// completions precede each wait is a trace of its own: a reversal that
// moves a wait before a completion it does not need must not be pruned,
// and one that leaves it too few bytes is (dpor::token_available).
const auto waits = kernel("test/tpu_waits", "several waits on one DMA semaphore")
    .param("copies", 3, "DMAs started before the waits", 1, 4)
    .body([](const Params& p) {
      auto& mesh = make<Mesh>(MeshConfig{1, 1, DmaOrder::any, {}});
      const auto n = static_cast<std::size_t>(p.get_int("copies"));
      auto src = hbm<int>("src", n), dst = vmem<int>("dst", n);
      auto sem = dma_semaphore("sem");
      mesh.launch([=] {
        for (std::size_t i = 0; i < n; ++i)
          make_async_copy(src.slice(i, 1), dst.slice(i, 1), sem).start();
        for (std::size_t i = 0; i < n; ++i) make_async_copy(src.slice(i, 1), dst.slice(i, 1), sem).wait();
      });
    });

}  // namespace

// One core starts two local DMAs of one element each, both signalling one
// semaphore, and waits once with a descriptor of both elements (as a
// kernel that copies a block in two halves and waits for the block does).
const auto one_wait = kernel("test/tpu_one_wait_two_dmas", "one wait whose bytes cover two DMAs")
    .flag("covering", true, "wait with the two-element descriptor (else a one-element one)")
    .body([](const Params& p) {
      auto& mesh = make<Mesh>(MeshConfig{1, 1, DmaOrder::any, {}});
      const bool covering = p.get_bool("covering");
      auto src = hbm<int>("src", 2), dst = vmem<int>("dst", 2);
      auto sem = dma_semaphore("sem");
      mesh.launch([=] {
        make_async_copy(src.slice(0, 1), dst.slice(0, 1), sem).start();
        make_async_copy(src.slice(1, 1), dst.slice(1, 1), sem).start();
        if (covering)
          make_async_copy(src, dst, sem).wait();  // waits for 2 elements' bytes
        else
          make_async_copy(src.slice(0, 1), dst.slice(0, 1), sem).wait();
      });
    });

// start; read dst; wait (or, with wait_first, start; wait; read dst).
const auto read_before_wait =
    kernel("test/tpu_read_before_wait", "a core reads a DMA's destination before waiting it")
        .flag("wait_first", false, "wait the DMA before reading its destination")
        .choice("dma_order", "any", dma_order_names(), "DMA completion policy")
        .body([](const Params& p) {
          auto& mesh = make<Mesh>(MeshConfig{1, 1, parse_dma_order(p.get("dma_order")), {}});
          const bool wait_first = p.get_bool("wait_first");
          auto src = hbm<int>("src", 1), dst = vmem<int>("dst", 1);
          auto sem = dma_semaphore("sem");
          mesh.launch([=] {
            auto copy = make_async_copy(src, dst, sem);
            copy.start();
            if (wait_first) copy.wait();
            observe("read", std::to_string(dst.load(0)));
            if (!wait_first) copy.wait();
          });
        });

// sync_copy, then the core reads the destination and overwrites the
// source: both ordered after the copy. With `async`, the same accesses sit
// between make_async_copy's start and its wait, and race with the DMA.
const auto sync_copy_order = kernel("test/tpu_sync_copy", "accesses after a sync_copy")
    .flag("async", false, "start an async copy and wait it only after the accesses")
    .choice("dma_order", "any", dma_order_names(), "DMA completion policy")
    .body([](const Params& p) {
      auto& mesh = make<Mesh>(MeshConfig{1, 1, parse_dma_order(p.get("dma_order")), {}});
      const bool async = p.get_bool("async");
      auto src = hbm<int>("src", 2), dst = vmem<int>("dst", 2);
      auto sem = dma_semaphore("sem");
      src.init(0, 5, 0);
      mesh.launch([=] {
        auto copy = make_async_copy(src, dst, sem);
        if (async) copy.start();
        else sync_copy(src, dst);
        observe("read", std::to_string(dst.load(0)));
        src.store(0, 9);
        if (async) copy.wait();
      });
    });

// Blocked calls given a bad dimension semantics, a block larger than its
// array, or an HBM ref of the wrong size.
const auto bad_blockspec = kernel("test/tpu_bad_blockspec", "model errors of blocked calls")
    .choice("what", "semantics", {"semantics", "block", "ref"}, "what is wrong")
    .body([](const Params& p) {
      auto& mesh = make<Mesh>(MeshConfig{1, 1, DmaOrder::any, {}});
      const std::string what = p.get("what");
      auto v = hbm<int>("v", what == "ref" ? 3 : 4);
      auto first = [](const GridPoint& g) { return GridPoint{g[0]}; };
      std::optional<std::int64_t> block = what == "block" ? 8 : 2;
      auto call = pallas_call<int>([](const GridPoint&, const std::vector<Ref<int>>&,
                                      const std::vector<Ref<int>>&) {},
                                   GridSpec{{2}, {what == "semantics" ? "core" : "arbitrary"}},
                                   {ArraySpec{"v", {4}, BlockSpec{{block}, first}}}, {});
      mesh.launch([=] { call({v}, {}); });
    });

// The untyped DMA (what the Pallas front end builds from an export): a copy
// between places of unequal element sizes, or reaching past its region,
// must be a model error at the copy; regions do not check bounds, so it
// once copied past the smaller buffer.
const auto bad_copy = kernel("test/tpu_bad_copy", "untyped DMAs between mismatched places")
    .choice("what", "elem", {"elem", "past_end"}, "unequal element sizes, or a place past its region")
    .body([](const Params& p) {
      auto& mesh = make<Mesh>(MeshConfig{1, 1, DmaOrder::any, {}});
      const bool past_end = p.get("what") == "past_end";
      Allocation& src = allocate(mesh, "src", Space::hbm, 4, 4);
      Allocation& dst = allocate(mesh, "dst", Space::vmem, past_end ? 4 : 2, past_end ? 2 : 4);
      Sem sem = dma_semaphore("sem");
      mesh.launch([&src, &dst, sem] {
        auto copy = make_copy(Place{src.instances.at(0), 0, 4}, Place{dst.instances.at(0), 0, 4}, sem,
                              std::source_location::current());
        copy.start(std::source_location::current());
        copy.wait(std::source_location::current());
      });
    });
