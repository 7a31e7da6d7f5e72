// The README's user project (test/ci/user_project): built from a clean copy
// with heddle as a meson subproject, then its own `run --all` job.
#include <catch2/catch.hpp>

#include <filesystem>

#include "test/ci/ci_support.hpp"

using namespace heddle::test;
namespace fs = std::filesystem;

TEST_CASE("the out-of-tree user project builds against heddle and passes its CI job",
          "[ci][slow]") {
  if (!on_path("meson") || !on_path("ninja")) {
    WARN("skipped: meson and ninja are needed to build the user project example");
    return;
  }
  const fs::path dir = temp_dir();
  const fs::path project = dir / "ring_models";
  fs::copy(fs::path(HEDDLE_SOURCE_ROOT) / "test/ci/user_project", project,
           fs::copy_options::recursive);
  fs::remove_all(project / "subprojects/heddle");
  fs::create_directory_symlink(HEDDLE_SOURCE_ROOT, project / "subprojects/heddle");
  // An unoptimized build: the example's own CI builds with its defaults.
  std::string build = "cd " + project.string() +
                      " && meson setup build --buildtype=plain >setup.log 2>&1"
                      " && ninja -C build ring_models >build.log 2>&1";
  int rc = std::system(build.c_str());
  INFO(slurp(project / "setup.log") << slurp(project / "build.log"));
  REQUIRE(rc == 0);
  const std::string exe = (project / "build/ring_models").string();
  auto job = run_binary("cd " + project.string() + " && " + exe,
                        "run --all --quiet --artifacts art --report junit=heddle.xml");
  INFO(job.out << job.err);
  CHECK(job.code == 0);
  CHECK(job.out.find("myproj/ring  correct ") != std::string::npos);
  CHECK(job.out.find("2 cases: 2 passed, 0 failed") != std::string::npos);
  const fs::path cex = project / "art/myproj.ring--signal_early.json";
  REQUIRE(fs::exists(cex));
  CHECK(fs::exists(project / "heddle.xml"));
  auto replay = run_binary(exe, "replay " + cex.string());
  CHECK(replay.code == 1);
  CHECK(replay.out.find("race: data race on ring[0]") != std::string::npos);
  CHECK(replay.out.find("kernels/ring.cpp:") != std::string::npos);
  fs::remove_all(dir);
}
