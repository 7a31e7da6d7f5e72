// dpor_bench: DPOR on lastzero(15) and indexer(15) (the reference's
// GenMC/Nidhugg comparison points). Prints executions, time, executions/s,
// the strategy's peak exploration state and the process's peak memory
// (getrusage maxrss), then runs as many executions under seeded random
// scheduling: a baseline measured in the same run. Usage:
// dpor_bench [kernel n [strategy]]..., strategy dpor (the default, POP) or
// optimal (wakeup trees); run one kernel per process to read its peak RSS.
#include <sys/resource.h>

#include <cstdio>
#include <string>
#include <vector>

#include "checker/explore/explorer.hpp"

namespace {
struct Run {
  std::string kernel, n, strategy = "dpor";
};

std::vector<Run> parse(int argc, char** argv) {
  std::vector<Run> runs;
  for (int i = 1; i + 1 < argc;) {
    Run r{argv[i], argv[i + 1]};
    i += 2;
    // An optional third word names the strategy (kernels have a '/').
    if (i < argc && std::string(argv[i]).find('/') == std::string::npos) r.strategy = argv[i++];
    runs.push_back(r);
  }
  if (runs.empty()) runs = {{"classic/lastzero", "15"}, {"classic/indexer", "15"}};
  return runs;
}
}  // namespace

int main(int argc, char** argv) {
  for (const auto& run : parse(argc, argv)) {
    const auto& k = heddle::find_kernel(run.kernel);
    heddle::RunConfig config;
    config.strategy = run.strategy;
    config.stop_at_first_bug = false;  // an exhaustive exploration, bugs or not
    auto r = heddle::explore(k, k.resolve({{"n", run.n}}), config);
    rusage ru{};
    getrusage(RUSAGE_SELF, &ru);
    std::printf("%s(%s) %s: %llu executions, %.2f s, %.0f executions/s, sleep-blocked %llu, "
                "max depth %u, peak state %.1f KiB, peak RSS %.1f MiB\n",
                run.kernel.c_str(), run.n.c_str(), run.strategy.c_str(),
                static_cast<unsigned long long>(r.stats.executions), r.stats.seconds,
                r.stats.executions / r.stats.seconds,
                static_cast<unsigned long long>(r.stats.sleep_blocked), r.stats.max_depth,
                r.stats.peak_state_bytes / 1024.0, ru.ru_maxrss / 1024.0);
    // The same-run baseline: as many executions under seeded random
    // scheduling, which only runs the model (no analysis, no state). The
    // ratio is what exploration costs on top of running the executions.
    heddle::RunConfig floor;
    floor.strategy = "random";
    floor.seed = 1;
    floor.stop_at_first_bug = false;
    floor.minimize = false;
    floor.max_executions = r.stats.executions;
    auto f = heddle::explore(k, k.resolve({{"n", run.n}}), floor);
    std::printf("  baseline (random, same executions): %.2f s; %s / baseline = %.2f\n",
                f.stats.seconds, run.strategy.c_str(), r.stats.seconds / f.stats.seconds);
  }
}
