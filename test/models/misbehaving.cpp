// Models that deadlock, loop, throw, overflow or abort, on purpose.
#include <cstdlib>
#include <stdexcept>

#include "checker/heddle.hpp"

namespace {
using namespace heddle;

const auto two_locks = kernel("test/two_locks", "two threads take two locks in opposite orders")
    .body([](const Params&) {
      auto& a = make<Mutex>("a");
      auto& b = make<Mutex>("b");
      spawn("T0", [&a, &b] {
        a.lock();
        b.lock();  // T0 waits for b
        b.unlock();
        a.unlock();
      });
      spawn("T1", [&a, &b] {
        b.lock();
        a.lock();  // T1 waits for a
        a.unlock();
        b.unlock();
      });
    });

const auto spin_forever = kernel("test/spin_forever", "a thread spins on a flag nobody sets")
    .body([](const Params&) {
      auto& flag = make<Atomic<int>>("flag", 0);
      spawn("spinner", [&flag] {
        while (flag.load() == 0) {  // the spin loop
        }
      });
    });

const auto plain_loop =
    kernel("test/plain_loop", "a thread loops over plain memory without visible operations")
        .flag("touch_memory", true, "read a buffer in the loop (false: an empty loop)")
        .body([](const Params& p) {
          auto x = buffer<int>("x", 1);
          bool touch = p.get_bool("touch_memory");
          spawn("looper", [=] {
            volatile int sink = 0;
            for (;;) {
              if (touch) sink = sink + x.load(0);
              else sink = sink + 1;
            }
          });
        });

const auto thrower = kernel("test/thrower", "a thread throws after a visible operation")
    .body([](const Params&) {
      auto& m = make<Mutex>("m");
      spawn("T0", [&m] {
        m.lock();  // last visible op before the throw
        throw std::runtime_error("boom");
      });
    });

int recurse(int depth) {  // NOLINT: unbounded on purpose
  if (depth < 0) return 0;
  volatile char pad[512];
  pad[0] = static_cast<char>(depth);
  return recurse(depth + 1) + pad[0];
}

const auto overflow = kernel("test/stack_overflow", "a thread recurses without end")
    .body([](const Params&) {
      auto& m = make<Mutex>("m");
      spawn("deep", [&m] {
        m.lock();
        m.unlock();
        recurse(0);
      });
    });

const auto aborter = kernel("test/aborter", "a thread calls abort() like a failed assert()")
    .body([](const Params&) {
      auto& m = make<Mutex>("m");
      spawn("T0", [&m] {
        m.lock();
        m.unlock();
        std::abort();
      });
    });

const auto asserter = kernel("test/asserter", "a check fails in one interleaving only")
    .body([](const Params&) {
      auto& x = make<Atomic<int>>("x", 0);
      spawn("writer", [&x] { x.store(1); });
      spawn("reader", [&x] { check(x.load() == 0, "reader saw the write"); });  // the check
    });

}  // namespace
