#include "models/cuda/session.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

#include "checker/program_runner.hpp"

namespace heddle::cuda {

const Options& options() {
  static const Options o = [] {
    const char* text = std::getenv(kOptionsVariable);
    Options o = decode_options(text ? text : "");
    try {
      launch_checker().validate(o.given);
    } catch (const std::exception& e) {
      fail(e.what());
    }
    return o;
  }();
  return o;
}

void record(const std::string& line) {
  const char* text = std::getenv(kOptionsVariable);
  std::string path = decode_options(text ? text : "").status;
  if (path.empty()) return;
  if (std::FILE* f = std::fopen(path.c_str(), "a")) {
    std::fprintf(f, "%s\n", line.c_str());
    std::fclose(f);
  }
}

void fail(const std::string& what) {
  std::fflush(stdout);
  std::fprintf(stderr, "heddle: error: %s\n", what.c_str());
  record("error " + what);
  _exit(2);
}

void stop_for_bug() {
  std::fflush(stdout);
  std::fflush(stderr);
  record("bug");
  _exit(1);
}

}  // namespace heddle::cuda
