// dpor_bench: optimal DPOR on lastzero(15) and indexer(15) (the reference's
// GenMC/Nidhugg comparison points). Prints executions, time, executions/s
// and peak memory (getrusage maxrss). Usage: dpor_bench [kernel n]...
#include <sys/resource.h>

#include <cstdio>
#include <string>
#include <vector>

#include "checker/explorer.hpp"

int main(int argc, char** argv) {
  std::vector<std::pair<std::string, std::string>> runs;
  for (int i = 1; i + 1 < argc; i += 2) runs.emplace_back(argv[i], argv[i + 1]);
  if (runs.empty()) runs = {{"classic/lastzero", "15"}, {"classic/indexer", "15"}};
  for (const auto& [name, n] : runs) {
    const auto& k = heddle::find_kernel(name);
    heddle::RunConfig config;
    config.strategy = "dpor";
    auto r = heddle::explore(k, k.resolve({{"n", n}}), config);
    rusage ru{};
    getrusage(RUSAGE_SELF, &ru);
    std::printf("%s(%s): %llu executions, %.2f s, %.0f executions/s, sleep-blocked %llu, "
                "max depth %u, peak RSS %.1f MiB\n",
                name.c_str(), n.c_str(), static_cast<unsigned long long>(r.stats.executions),
                r.stats.seconds, r.stats.executions / r.stats.seconds,
                static_cast<unsigned long long>(r.stats.sleep_blocked), r.stats.max_depth,
                ru.ru_maxrss / 1024.0);
  }
}
