// Kernels of the CI fixture binary whose SARIF reports are golden files
// (test/ci/golden/ci-job.sarif): a race, a deadlock, an exit error, a failed
// assertion and a setup that throws (its report names no source line). Editing this file moves the
// lines the golden files name: regenerate them with HEDDLE_UPDATE_GOLDEN=1
// and read the difference.
#include <stdexcept>

#include "checker/heddle.hpp"
#include "models/tpu/tpu.hpp"

namespace {
using namespace heddle;

// The producer signals before it writes: the consumer's read races the write.
const auto race = kernel("golden/race", "a consumer reads a buffer signalled too early")
    .preset("shipped", {}, Verdict::race)
    .body([](const Params&) {
      auto data = buffer<int>("data", 1);
      auto& ready = make<Semaphore>("ready", 0);
      spawn("producer", [=, &ready]() mutable {
        ready.signal();
        data.store(0, 7);  // golden: the write
      });
      spawn("consumer", [=, &ready]() mutable {
        ready.wait();
        check(data.load(0) == 7, "the consumer saw the buffer before it was written");
      });
    });

// Each thread takes one lock and then waits for the other's.
const auto deadlock = kernel("golden/deadlock", "two threads take two locks in opposite orders")
    .preset("shipped", {}, Verdict::deadlock)
    .body([](const Params&) {
      auto& a = make<Mutex>("a");
      auto& b = make<Mutex>("b");
      spawn("T0", [&a, &b] {
        a.lock();
        b.lock();  // golden: T0 blocks
        b.unlock();
        a.unlock();
      });
      spawn("T1", [&a, &b] {
        b.lock();
        a.lock();  // golden: T1 blocks
        a.unlock();
        b.unlock();
      });
    });

// A TPU core starts a local DMA and returns without waiting for it.
const auto exit_error = kernel("golden/exit", "a DMA is still unwaited when the kernel returns")
    .preset("shipped", {}, Verdict::async_error)
    .body([](const Params&) {
      using namespace heddle::tpu;
      auto& mesh = make<Mesh>(MeshConfig{1, 1, DmaOrder::any, {}});
      auto in = hbm<int>("in", 1), buf = vmem<int>("buf", 1);
      auto sem = dma_semaphore("sem");
      mesh.launch([=] {
        auto copy = make_async_copy(in, buf, sem);
        copy.start();  // golden: the DMA never waited
      });
    });

// Two threads add to a counter; the final check fails after a lost update.
const auto assertion = kernel("golden/assertion", "a final check fails after a lost update")
    .preset("shipped", {}, Verdict::assertion)
    .body([](const Params&) {
      auto& n = make<Atomic<int>>("n", 0);
      for (int t = 0; t < 2; ++t)
        spawn("T" + std::to_string(t), [&n] {
          int v = n.load(Order::acquire);
          n.store(v + 1, Order::release);  // golden: the lost update
        });
      at_exit([&n] { check(n.peek() == 2, "an increment was lost"); });  // golden: the check
    });

// The setup throws: the report names no source line, so the SARIF result is
// located where the kernel is declared.
const auto setup_throws = kernel("golden/setup_throws", "the setup throws a plain exception")
    .preset("shipped", {}, Verdict::model_error)
    .body([](const Params&) { throw std::runtime_error("no such tile size"); });

}  // namespace
