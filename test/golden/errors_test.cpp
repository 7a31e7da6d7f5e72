// Model errors point at the user's line, never at heddle's sources or
// headers: each misuse below is reported at its own marked line, or, where
// heddle cannot see the line, at the nearest user line it knows.
#include "checker/engine/user_site.hpp"
#include "models/gpu/gpu.hpp"
#include "models/gpu/pallas.hpp"
#include "test/golden/golden.hpp"

using namespace heddle;
using heddle::test::has;

namespace {
const std::string kFile = "test/golden/errors_test.cpp";

// The example: shared memory before the launch is declared.
const auto shared_first = kernel("errors/shared_before_grid", "shared() before grid()")
    .body([](const Params&) {
      (void)gpu::shared<int>("s", 4);  // misuse: shared before grid
    });

const auto global_first = kernel("errors/global_before_grid", "global() before grid()")
    .body([](const Params&) {
      (void)gpu::global<int>("g", 4);  // misuse: global before grid
    });

// A misuse heddle detects inside a conversion that has no call site of its
// own (a CTA's shared view outside a kernel thread): reported at the kernel.
const auto view_in_setup = kernel("errors/shared_view_in_setup", "a CTA's view in setup")
    .body([](const Params&) {
      gpu::grid({});
      auto s = gpu::shared<int>("s", 4);
      gpu::View<int> v = s;  // misuse: no thread here
      (void)v;
    });

// In a thread: an out-of-bounds view index names its line.
const auto out_of_bounds = kernel("errors/view_out_of_bounds", "an index past a view")
    .body([](const Params&) {
      gpu::grid({});
      auto g = gpu::global<int>("g", 2);
      gpu::current_grid().launch([=](const gpu::ThreadInfo&) {
        g.store(5, 1);  // misuse: index 5 of 2
      });
    });

/// The model error's "at" detail line of `kernel`'s first execution.
std::string site_of(const std::string& kernel) {
  RunResult r = test::run(kernel);
  REQUIRE(r.bug);
  REQUIRE(r.bug->kind == Verdict::model_error);
  INFO(format_report(*r.bug));
  REQUIRE(!r.bug->details.empty());
  return r.bug->details.back();
}
}  // namespace

TEST_CASE("model errors name the user's line, never heddle's headers", "[errors]") {
  for (const auto& [kernel, marker] : std::vector<std::pair<std::string, std::string>>{
           {"errors/shared_before_grid", "// misuse: shared before grid"},
           {"errors/global_before_grid", "// misuse: global before grid"},
           {"errors/view_out_of_bounds", "// misuse: index 5 of 2"}}) {
    INFO(kernel);
    CHECK(site_of(kernel) == "at " + test::source_line(kFile, marker));
  }
  std::string setup = site_of("errors/shared_view_in_setup");
  CHECK(setup == "in the setup (body) of kernel errors/shared_view_in_setup, declared at " +
                     test::source_line(kFile, "kernel(\"errors/shared_view_in_setup\""));
  for (const auto& [name, k] : kernels()) {
    if (!name.starts_with("errors/")) continue;
    std::string site = site_of(name);
    CHECK_FALSE(has(site, "checker/"));
    CHECK_FALSE(has(site, "models/"));
  }
}

TEST_CASE("heddle's own files are told apart from the user's", "[errors]") {
  CHECK_FALSE(in_heddle(std::source_location::current()));
  // The fallback above is taken only because the view's conversion runs in
  // models/gpu/memory.hpp: where a call site is known, it is reported as is.
  CHECK(error_site(std::source_location::current(), "fallback").starts_with("at " + kFile + ":"));
}
