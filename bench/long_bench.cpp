// long_bench: the cost of dpor's analysis on one long execution, against
// dfs running the same execution (the same-run baseline). `threads` threads
// each do `ops` fetch_adds on one atomic; one execution of threads*ops
// steps is explored (max_executions = 1). Usage: long_bench [steps]...
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "checker/explore/explorer.hpp"
#include "checker/heddle.hpp"

namespace {
using namespace heddle;

const Registration long_chain =
    kernel("bench/long_chain", "threads doing fetch_adds on one atomic (one long execution)")
        .param("threads", 4, "threads", 1, 64)
        .param("ops", 1000, "fetch_adds per thread", 1, 1000000)
        .body([](const Params& p) {
          auto& x = make<Atomic<long>>("x", 0);
          const long ops = p.get_int("ops");
          for (long t = 0; t < p.get_int("threads"); ++t)
            spawn("T" + std::to_string(t), [&x, ops] {
              for (long i = 0; i < ops; ++i) x.fetch_add(1, Order::relaxed);
            });
        });

double seconds(const char* strategy, long steps) {
  const auto& k = find_kernel("bench/long_chain");
  RunConfig c;
  c.strategy = strategy;
  c.max_executions = 1;
  c.max_steps = static_cast<std::uint32_t>(steps + 10);
  auto r = explore(k, k.resolve({{"threads", "4"}, {"ops", std::to_string(steps / 4)}}), c);
  return r.stats.seconds;
}
}  // namespace

int main(int argc, char** argv) {
  std::vector<long> steps;
  for (int i = 1; i < argc; ++i) steps.push_back(std::atol(argv[i]));
  if (steps.empty()) steps = {10000, 40000, 100000};
  for (long n : steps) {
    const double dpor = seconds("dpor", n), dfs = seconds("dfs", n);
    std::printf("%ld steps: dpor %.3f s, dfs %.3f s, dpor / dfs %.1f\n", n, dpor, dfs, dpor / dfs);
  }
}
