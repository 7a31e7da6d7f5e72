// An mbarrier-completed TMA load is tracked by its mbarrier, not by bulk
// async-groups (PTX ISA 9.7.9.25): a producer that issues loads and exits,
// as CUTLASS and DeepGEMM producers do, is correct when a consumer waits on
// the mbarrier; a load whose completion no one waits for is an exit error.
#include <catch2/catch.hpp>

#include "models/gpu/gpu.hpp"
#include "test/support/harness.hpp"

using namespace heddle;
using namespace heddle::gpu;

namespace {
// test/tma_load_exit: a producer issues one tensor load of 4 ints into sA,
// completing on `full`, and exits; the consumer (wait=1) waits on full and
// reads sA, or (wait=0) exits without waiting.
const Registration tma_load_exit =
    kernel("test/tma_load_exit", "a producer issues a TMA load and exits")
        .param("wait", 1, "1: the consumer waits on the load's mbarrier", 0, 1)
        .body([](const Params& p) {
          const bool wait = p.get_int("wait") == 1;
          grid(LaunchConfig{1, 1, {{"producer"}, {"consumer"}}});
          auto A = global<int>("A", 4);
          for (std::size_t i = 0; i < 4; ++i) A.init(i, static_cast<int>(i + 1));
          TensorMap desc = global_tensormap("tensormap_A", describe_boxes(A, 4, 1, 1));
          auto sA = shared<int>("sA", 4);
          auto& full = make<Mbarrier>("full", 1);
          current_grid().launch([=, &full](const ThreadInfo& t) {
            View<int> s = sA;
            if (t.thread == 0) {
              full.arrive_expect_tx(4 * sizeof(int));
              tensor_load(span(s), desc, 0, 0, full);
              return;  // exits with the load in flight: fine, full tracks it
            }
            if (!wait) return;
            full.wait_parity(0);
            observe("sum", std::to_string(s.load(0) + s.load(1) + s.load(2) + s.load(3)));
          });
        });
}  // namespace

TEST_CASE("a producer may exit with TMA loads in flight; the mbarrier tracks them", "[gpu]") {
  auto ok = test::outcomes("test/tma_load_exit", {{"wait", "1"}}, RunConfig{});
  CHECK(ok.verdicts == std::set<std::string>{"ok"});
  CHECK(ok.final_states.size() == 1);
  CHECK(ok.final_states.begin()->find("sum=10") != std::string::npos);

  RunResult lost = test::run("test/tma_load_exit", {{"wait", "0"}});
  REQUIRE(lost.bug);
  CHECK(lost.verdict == Verdict::async_error);
  CHECK(lost.bug->title.find("tensor load") != std::string::npos);
  CHECK(lost.bug->title.find("was never waited for") != std::string::npos);
}
