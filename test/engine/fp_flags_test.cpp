// No fiber switch changes MXCSR: every side of a switch keeps the sticky
// floating-point exception flags raised (raise_fp_flags, fiber.hpp), so the
// switch's MXCSR load, which stalls when it changes the value, never does.
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <cfenv>
#include <mutex>
#include <set>
#include <string>

#include "checker/explore/explorer.hpp"
#include "checker/heddle.hpp"

using namespace heddle;

#if defined(__x86_64__)
namespace {
std::mutex g_seen_mu;
std::set<unsigned> g_seen;  // every MXCSR value met, on either side of a switch

void note_mxcsr() {
  const unsigned csr = __builtin_ia32_stmxcsr();
  std::lock_guard lock(g_seen_mu);
  g_seen.insert(csr);
}

// Inexact arithmetic (it raises the precision flag) where the compiler cannot fold it.
double third() {
  volatile double one = 1.0;
  return one / 3.0;
}

// Threads that compute between their operations.
const auto fp_threads =
    kernel("test/fp_flags", "threads do inexact arithmetic between operations")
        .param("threads", 2, "threads", 1, 4)
        .body([](const Params& p) {
          auto& x = make<Atomic<int>>("x", 0);
          const long n = p.get_int("threads");
          for (long t = 0; t < n; ++t)
            spawn(fmt::format("T{}", t), [&x] {
              note_mxcsr();  // a body's start
              for (int i = 0; i < 2; ++i) {
                volatile double v = third();
                (void)v;
                x.fetch_add(1, Order::relaxed);
                note_mxcsr();  // back from a switch
              }
            });
        });
}  // namespace

TEST_CASE("no fiber switch changes MXCSR, whatever arithmetic either side does", "[engine]") {
  for (std::uint32_t jobs : {0u, 2u}) {
    INFO("jobs " << jobs);
    {
      std::lock_guard lock(g_seen_mu);
      g_seen.clear();
    }
    std::feclearexcept(FE_ALL_EXCEPT);  // the controller starts with the flags clear
    RunConfig c;
    c.strategy = "dpor";
    c.jobs = jobs;
    c.split_trial = false;  // split even so small a run: items run on both workers
    const auto& k = find_kernel("test/fp_flags");
    auto r = explore(k, k.resolve({{"threads", "3"}}), c, [](const ExecutionRecord&, Ending) {
      volatile double v = third();  // the controller computes between executions
      (void)v;
      note_mxcsr();
    });
    REQUIRE(r.exhaustive);
    REQUIRE(r.stats.executions > 1);
    std::lock_guard lock(g_seen_mu);
    CHECK(g_seen.size() == 1);
    for (unsigned csr : g_seen) CHECK((csr & 0x3Fu) == 0x3Fu);
  }
}
#endif
