// What the front-end harnesses (fuzz_ptx, fuzz_pallas) share: a bounded
// exploration of the kernel a fuzzed file loaded, and the judgement of what
// it found. A bug of the kernel is a fine outcome (odd input makes odd
// kernels); an exception escaping the interpreter or a fault in it is not:
// heddle owes the user a clear message, so those abort (a libFuzzer crash).
#pragma once
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "checker/engine/strategy.hpp"
#include "checker/explore/explorer.hpp"

namespace heddle::fuzz {

/// A small budget: a few executions of a few hundred steps each, and a
/// short step timeout, so a runaway loop costs a fraction of a second.
inline RunConfig bounded_config() {
  RunConfig c;
  c.strategy = "dfs";
  c.max_executions = 3;
  c.max_steps = 400;
  c.step_timeout = 0.25;
  c.minimize = false;
  // Strategies register at static initialization: a harness linked
  // without them would reject every run with a UsageError, silently.
  static const bool linked = [&] {
    try {
      return make_strategy(c) != nullptr;
    } catch (...) {
      std::fprintf(stderr, "fuzz: strategy %s is not linked in\n", c.strategy.c_str());
      std::abort();
    }
  }();
  (void)linked;
  return c;
}

/// With HEDDLE_FUZZ_VERBOSE set, prints what an input came to (run the
/// harness on one file to see why it is rejected or what its run found).
inline void note(const std::string& what) {
  if (std::getenv("HEDDLE_FUZZ_VERBOSE") != nullptr) std::fprintf(stderr, "fuzz: %s\n", what.c_str());
}

/// Aborts when `r`'s bug is the interpreter's failure rather than the
/// kernel's: a C++ exception out of model code, a fault, abort().
inline void require_clear_result(const RunResult& r) {
  note(std::to_string(r.stats.executions) + " executions, " +
       (r.bug ? std::string(verdict_name(r.bug->kind)) + ": " + r.bug->title : std::string("no bug")));
  if (!r.bug) return;
  const std::string& t = r.bug->title;
  for (const char* bad : {"threw an exception", "threw an unknown exception", "invalid memory access",
                          "arithmetic fault", "called abort()", "stack overflow", "[heddle bug]"}) {
    if (t.find(bad) != std::string::npos) {
      std::fprintf(stderr, "fuzz: the interpreter failed instead of reporting: %s\n", t.c_str());
      for (const auto& d : r.bug->details) std::fprintf(stderr, "  %s\n", d.c_str());
      std::abort();
    }
  }
}

/// Writes `text` to this process's scratch file with `suffix`, returns its path.
inline std::string scratch_file(const std::string& text, const char* suffix) {
  std::string path = "/tmp/heddle-fuzz-" + std::to_string(getpid()) + suffix;
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

}  // namespace heddle::fuzz
