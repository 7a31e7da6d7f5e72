// The uni-directional generic -> tensormap proxy pattern (PTX ISA §9.7.13.4):
// a descriptor written in the generic proxy is visible to a TMA op's
// descriptor read only through a release proxy fence (or cp_fenceproxy)
// after the write and an acquire proxy fence before the op, with
// synchronization between them.
#include <catch2/catch.hpp>

#include "test/support/harness.hpp"
#include "test/support/mentions.hpp"
#include "test/support/presets.hpp"

using namespace heddle;

TEST_CASE("fence.proxy.tensormap: both the release and the acquire half are needed",
          "[gpu][tensormap]") {
  test::check_presets("hopper/tensormap_update");
  auto ok = test::outcomes("hopper/tensormap_update", {}, RunConfig{});
  REQUIRE(ok.final_states.size() == 1);
  CHECK(ok.final_states.begin()->find("a0=2") != std::string::npos);  // the new address
  for (const char* v : {"no_release", "no_acquire"}) {
    INFO(v);
    RunResult r = test::run("hopper/tensormap_update", {{"variant", v}});
    REQUIRE(r.bug);
    CHECK(test::accessed_by(*r.bug, "tma.read_desc"));
    CHECK(test::accessed_by(*r.bug, "tensormap.replace"));
    CHECK(test::mentions(*r.bug, "fence.proxy.tensormap::generic.release"));
  }
}
