// The README's user project (test/ci/user_project): built from a clean copy
// with heddle as a meson subproject, then its own `run --all` job.
#include <catch2/catch.hpp>

#include <chrono>
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
  // An unoptimized build, heddle's sources compiled as one translation unit
  // per library (a unity build of the subproject: 91 s on a 2-core machine,
  // where file by file took 290 s in CI; the example's own CI builds with
  // its defaults).
  std::string build = "cd " + project.string() +
                      " && meson setup build --buildtype=plain --unity subprojects"
                      " -Dunity_size=1000 >setup.log 2>&1"
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
  // The user's own binary is the one its replay hints name.
  auto one = run_binary("cd " + project.string() + " && " + exe,
                        "run myproj/ring --preset signal_early --quiet --out cex.json");
  CHECK(one.code == 1);
  CHECK(one.out.find("replay with: " + exe + " replay cex.json\n") != std::string::npos);
  auto replay = run_binary(exe, "replay " + cex.string());
  CHECK(replay.code == 1);
  CHECK(replay.out.find("race: data race on ring[0]") != std::string::npos);
  CHECK(replay.out.find("kernels/ring.cpp:") != std::string::npos);
  fs::remove_all(dir);
}

TEST_CASE("a user project builds against an installed heddle, without warnings from its headers",
          "[ci][slow]") {
  if (!on_path("meson") || !on_path("ninja") || !on_path("pkg-config")) {
    WARN("skipped: meson, ninja and pkg-config are needed to install heddle and build against it");
    return;
  }
  const fs::path dir = temp_dir();
  // meson install into a staging directory; pkg-config's sysroot maps the
  // installed prefix into it (as a packager's DESTDIR install is used).
  const fs::path stage = dir / "stage";
  int rc = std::system(("meson install -C " + std::string(HEDDLE_BUILD_ROOT) +
                        " --no-rebuild --quiet --destdir " + stage.string() + " >" +
                        (dir / "install.log").string() + " 2>&1")
                           .c_str());
  INFO(slurp(dir / "install.log"));
  REQUIRE(rc == 0);
  fs::path pc;
  for (const auto& e : fs::recursive_directory_iterator(stage))
    if (e.path().filename() == "heddle.pc") pc = e.path();
  REQUIRE(!pc.empty());
  const std::string pc_text = slurp(pc);
  CHECK(pc_text.find("-Wl,--whole-archive -lheddle -lheddle_models -Wl,--no-whole-archive") !=
        std::string::npos);
  // User kernels run on fiber stacks with a guard page: a big frame must
  // touch it (a stack overflow report), not jump past it (issue 54.10).
  CHECK(pc_text.find("-fstack-clash-protection") != std::string::npos);
  const fs::path project = dir / "ring_models";
  fs::copy(fs::path(HEDDLE_SOURCE_ROOT) / "test/ci/user_project", project,
           fs::copy_options::recursive);
  fs::remove_all(project / "subprojects");  // no fallback: the installed heddle or nothing
  const std::string env = "PKG_CONFIG_PATH=" + pc.parent_path().string() +
                          " PKG_CONFIG_SYSROOT_DIR=" + stage.string();
  std::string build = "cd " + project.string() + " && " + env +
                      " meson setup build --wrap-mode=nofallback -Dwarning_level=2 "
                      ">setup.log 2>&1 && ninja -C build ring_models >build.log 2>&1";
  auto start = std::chrono::steady_clock::now();
  rc = std::system(build.c_str());
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  INFO(slurp(project / "setup.log") << slurp(project / "build.log"));
  REQUIRE(rc == 0);
  WARN("the user project built against the installed heddle in " << seconds << " s");
  CHECK(slurp(project / "setup.log").find("heddle found: YES") != std::string::npos);
  CHECK(slurp(project / "build.log").find("warning:") == std::string::npos);  // -Wall -Wextra
  // Compiled against the installed headers, not a source tree.
  CHECK(slurp(project / "build/compile_commands.json").find(stage.string() + "/") !=
        std::string::npos);
  auto job = run_binary("cd " + project.string() + " && build/ring_models",
                        "run --all --quiet --artifacts art");
  INFO(job.out << job.err);
  CHECK(job.code == 0);
  CHECK(job.out.find("2 cases: 2 passed, 0 failed") != std::string::npos);
  fs::remove_all(dir);
}
