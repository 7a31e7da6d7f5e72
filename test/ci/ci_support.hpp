// Helpers shared by the CI job's tests: running heddle binaries and files.
#pragma once
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "test/ci/ci_paths.hpp"
#include "test/support/harness.hpp"

namespace heddle::test {

/// Runs `EXE ARGS` through /bin/sh (quote ARGS) and captures its output.
inline CliResult run_binary(const std::string& exe, const std::string& args) {
  std::string dir = temp_dir();
  std::string cmd = exe + " " + args + " >" + dir + "/out 2>" + dir + "/err";
  int status = std::system(cmd.c_str());
  CliResult r;
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = slurp(dir + "/out");
  r.err = slurp(dir + "/err");
  std::filesystem::remove_all(dir);
  return r;
}

/// Runs the fixture binary (heddle's CLI over the kernels of fixture_kernels.cpp).
inline CliResult fixture(const std::string& args) { return run_binary(HEDDLE_CI_FIXTURE, args); }

/// Number of (possibly overlapping) occurrences of `what` in `text`.
inline std::size_t count_of(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

/// True when `exe` is found on PATH.
inline bool on_path(const std::string& exe) {
  return std::system(("command -v " + exe + " >/dev/null 2>&1").c_str()) == 0;
}

}  // namespace heddle::test
