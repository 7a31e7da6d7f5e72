// Models that misbehave as a hostile or careless user's would: each must end
// in a defined verdict naming the model's line, and heddle must survive it.
// The `where` parameter puts the misbehaviour in a thread or in setup.
#include <cstdlib>
#include <cstring>
#include <optional>
#include <stdexcept>

#include "checker/heddle.hpp"

namespace {
using namespace heddle;

int* volatile g_null = nullptr;  // volatile: the compiler may not assume the crash

void null_store() { *g_null = 1; }  // the null store

int setup_recurse(int depth) {  // NOLINT: unbounded on purpose
  volatile char pad[256];
  pad[0] = static_cast<char>(depth);
  return setup_recurse(depth + 1) + pad[0];  // the setup recursion
}

// A frame much larger than the guard page (it would jump over it unprobed).
int huge_frame() {
  volatile char big[1 << 20];
  big[0] = 1;  // the huge frame
  return big[0];
}

void throws_in_noexcept() noexcept { throw std::runtime_error("out of a noexcept function"); }

KernelBuilder hostile(const char* name, const char* what) {
  KernelBuilder b = kernel(name, what);
  b.choice("where", "thread", {"thread", "setup"}, "where it misbehaves");
  return b;
}

// Runs `bad` in a thread (after one visible operation) or in setup.
void misbehave(const Params& p, std::function<void()> bad) {
  if (p.get("where") == "setup") {
    bad();
    return;
  }
  auto& m = make<Mutex>("m");
  spawn("T0", [&m, bad] {
    m.lock();
    m.unlock();  // the thread's last visible operation
    bad();
  });
}

const auto null_deref = hostile("hostile/null_deref", "stores through a null pointer")
    .body([](const Params& p) { misbehave(p, null_store); });

const auto recursion = hostile("hostile/recursion", "recurses without end")
    .body([](const Params& p) { misbehave(p, [] { setup_recurse(0); }); });

const auto big_frame = hostile("hostile/huge_frame", "has a 1 MiB local array")
    .body([](const Params& p) { misbehave(p, [] { huge_frame(); }); });

const auto raw_oob = hostile("hostile/raw_oob", "writes past a buffer's end through init()")
    .body([](const Params& p) {
      auto b = buffer<int>("b", 4);
      misbehave(p, [b]() mutable { b.init(4, 7); });  // the raw write
    });

const auto quitter = hostile("hostile/exit", "calls std::exit(0)")
    .body([](const Params& p) { misbehave(p, [] { std::exit(0); }); });

const auto forever = hostile("hostile/loop", "loops forever without a visible operation")
    .body([](const Params& p) {
      misbehave(p, [] {
        volatile unsigned sink = 0;
        for (;;) sink = sink + 1;  // the endless loop
      });
    });

const auto noexcept_throw = hostile("hostile/noexcept", "throws out of a noexcept function")
    .body([](const Params& p) { misbehave(p, throws_in_noexcept); });

const auto div_zero = hostile("hostile/div_zero", "divides an integer by zero")
    .body([](const Params& p) {
      misbehave(p, [] {
        volatile int zero = 0, seven = 7;
        volatile int r = seven / zero;  // the division
        (void)r;
      });
    });

const auto exit_check_throws =
    kernel("hostile/exit_check_throws", "an exit check throws").body([](const Params&) {
      auto& x = make<Atomic<int>>("x", 0);
      spawn("T0", [&x] { x.store(1); });
      at_exit([] { throw std::runtime_error("exit check exploded"); });  // the exit check
    });

const auto phase_throws =
    kernel("hostile/phase_throws", "an async phase throws").body([](const Params&) {
      auto dst = buffer<int>("dst", 1);
      spawn("T0", [dst] {
        auto explode = [] { throw std::runtime_error("phase exploded"); };
        issue("copy", {phase("copy", {touches(dst.region(), true)}, explode)});  // the issue
      });
    });

const auto await_throws =
    kernel("hostile/await_throws", "an await predicate throws").body([](const Params&) {
      auto& x = make<Atomic<int>>("x", 0);
      spawn("T0", [&x] {
        await([]() -> bool { throw std::runtime_error("predicate exploded"); }, {&x});  // the await
      });
    });

// Runaways outside a thread step: each loops forever, making no access
// heddle could stop it at, until the step watchdog's second strike.
void spin_forever() {
  volatile unsigned sink = 0;
  for (;;) sink = sink + 1;
}

const auto await_loop =
    kernel("hostile/await_loop", "an await predicate loops forever")
        .preset("runaway", {}, Verdict::model_error)
        .body([](const Params&) {
          auto& x = make<Atomic<int>>("x", 0);
          spawn("T0", [&x] {
            await([]() -> bool { spin_forever(); return true; }, {&x});  // the runaway await
          });
        });

const auto phase_loop =
    kernel("hostile/phase_loop", "an async phase loops forever").body([](const Params&) {
      auto dst = buffer<int>("dst", 1);
      spawn("T0", [dst] {
        issue("copy", {phase("copy", {touches(dst.region(), true)}, spin_forever)});  // the looping copy
      });
    });

const auto exit_check_loop =
    kernel("hostile/exit_check_loop", "an exit check loops forever").body([](const Params&) {
      auto& x = make<Atomic<int>>("x", 0);
      spawn("T0", [&x] { x.store(1); });
      at_exit(spin_forever);  // the looping exit check
    });

const auto many_threads =
    kernel("hostile/many_threads", "thousands of threads increment one atomic")
        .param("threads", 10000, "threads", 1, 100000)
        .body([](const Params& p) {
          auto& x = make<Atomic<int>>("x", 0);
          for (int i = 0; i < p.get_int("threads"); ++i)
            spawn("T" + std::to_string(i), [&x] { x.fetch_add(1); });
        });

const auto sem_overflow =
    kernel("hostile/semaphore_overflow", "signals a semaphore past its count").body([](const Params&) {
      auto& s = make<Semaphore>("s", 0xfffffffeu);
      spawn("T0", [&s] {
        s.signal();
        s.signal();  // the overflowing signal
      });
    });

Mutex* g_kept = nullptr;  // a reference kept from an earlier execution
const auto stale =
    kernel("hostile/stale_reference", "keeps a mutex from the first execution").body([](const Params&) {
      auto& m = make<Mutex>("m");
      if (g_kept == nullptr) g_kept = &m;
      Mutex* kept = g_kept;
      auto& x = make<Atomic<int>>("x", 0);
      spawn("A", [&x] { x.store(1); });
      spawn("B", [&x, kept] {
        x.store(2);
        kept->lock();  // the stale lock
        kept->unlock();
      });
    });

std::optional<Buffer<int>> g_kept_buffer;  // kept from an earlier execution (its storage is reused)
const auto stale_buffer =
    kernel("hostile/stale_buffer", "keeps a buffer from the first execution").body([](const Params&) {
      auto b = buffer<int>("b", 4, 7);
      if (!g_kept_buffer) g_kept_buffer = b;
      Buffer<int> kept = *g_kept_buffer;
      auto& x = make<Atomic<int>>("x", 0);
      spawn("A", [&x] { x.store(1); });
      spawn("B", [&x, kept]() mutable {
        x.store(2);
        kept.store(1, 5);  // the stale store
      });
    });

// Keeps a buffer of its first execution and reads it, without a race
// check, in the next one's exit check (issue 54.2: passed as verified).
std::optional<Buffer<int>> g_kept_result;
const auto use_after_execution =
    kernel("hostile/use_after_execution", "reads a buffer kept from the first execution")
        .body([](const Params&) {
          auto out = buffer<int>("out", 1);
          if (!g_kept_result) g_kept_result = out;
          auto& x = make<Atomic<int>>("x", 0);
          spawn("A", [&x, out]() mutable { out.store(0, x.fetch_add(1) + 1); });
          spawn("B", [&x] { x.fetch_add(1); });
          at_exit([] { check(g_kept_result->raw(0) >= 0, "a result"); });  // the kept read
        });

// Keeps a buffer in a static whose destructor reads it after main returned
// (issue 54.3: exited 134 with "[heddle bug]").
struct ReadAtExit {
  std::optional<Buffer<int>> kept;
  ~ReadAtExit() {
    if (kept) (void)kept->raw(0);  // the read after main
  }
};
ReadAtExit g_read_at_exit;
const auto use_after_main =
    kernel("hostile/use_after_main", "reads a buffer from a static's destructor after main")
        .body([](const Params&) {
          auto b = buffer<int>("b", 1);
          if (!g_read_at_exit.kept) g_read_at_exit.kept = b;
          auto& x = make<Atomic<int>>("x", 0);
          spawn("A", [&x] { x.store(1); });
        });

int g_builds = 0;  // differs between executions: the setup is not deterministic
const auto nondeterministic =
    kernel("hostile/nondeterministic_setup", "builds more objects on each execution")
        .body([](const Params&) {
          auto& x = make<Atomic<int>>("x", 0);
          if (g_builds++ > 0) make<Mutex>("extra");  // the nondeterministic object
          spawn("A", [&x] { x.store(1); });
          spawn("B", [&x] { x.store(2); });
        });

// A thread that spins on an atomic nobody sets: each load is a step, so
// one execution runs to --max-steps (a livelock); --time-limit must bound
// the run all the same (issue 54.6: 51.7 s under --time-limit 5).
const auto spin_atomic =
    kernel("hostile/spin_atomic", "spins on an atomic that no thread sets").body([](const Params&) {
      auto& flag = make<Atomic<int>>("flag", 0);
      auto& other = make<Atomic<int>>("other", 0);
      spawn("spinner", [&flag] {
        while (flag.load() == 0) {  // the spin
        }
      });
      spawn("bystander", [&other] { other.store(1); });
    });

const auto huge_buffer = kernel("hostile/huge_buffer", "asks for a 64 GiB buffer")
    .body([](const Params&) { buffer<char>("huge", std::size_t{64} << 30); });

}  // namespace
