// ptx_speed: warp-instructions per second of the PTX interpreter on one
// schedule of a kernel (issue 46). Builds the kernel as `heddle run --ptx`
// does, explores one execution (dfs, max_executions 1) and divides the
// warp instructions all warps ran by the run's time.
// Usage: ptx_speed FILE.ptx ENTRY GRID BLOCK [NAME=SPEC ...]
#include <fmt/format.h>

#include <exception>
#include <string>

#include "checker/explore/explorer.hpp"
#include "checker/heddle.hpp"
#include "models/ptx/warp.hpp"

int main(int argc, char** argv) {
  using namespace heddle;
  if (argc < 5) {
    fmt::print(stderr, "usage: ptx_speed FILE.ptx ENTRY GRID BLOCK [NAME=SPEC ...]\n");
    return 2;
  }
  std::string args;
  for (int i = 5; i < argc; ++i) args += (args.empty() ? "" : " ") + std::string(argv[i]);
  std::map<std::string, std::string> values{
      {"file", argv[1]}, {"kernel", argv[2]}, {"grid", argv[3]}, {"block", argv[4]}, {"args", args}};
  try {
    for (const FrontEnd& fe : front_ends()) {
      if (fe.name != "ptx") continue;
      const Kernel& k = build_kernel(fe, values);
      RunConfig c;
      c.strategy = "dfs";
      c.max_executions = 1;
      c.max_steps = 10'000'000;
      RunResult r = explore(k, k.resolve(values), c);
      std::uint64_t n = ptx::warp_instructions_run();
      fmt::print("{} {}: verdict {}, {} steps, {} warp instructions in {:.3f} s: {:.0f} warp instructions/s\n",
                 argv[1], argv[2], verdict_name(r.verdict), r.stats.max_depth, n, r.stats.seconds,
                 static_cast<double>(n) / r.stats.seconds);
      return 0;
    }
  } catch (const std::exception& e) {
    fmt::print(stderr, "ptx_speed: error: {}\n", e.what());
    return 2;
  }
  return 2;
}
