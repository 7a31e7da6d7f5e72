// The PTX front end's registration: `heddle run --ptx FILE --kernel NAME
// --grid X[,Y,Z] --block X[,Y,Z] [--cluster X[,Y,Z]] --arg NAME=SPEC ... [--ptx-strict]` builds kernel
// "ptx/NAME", whose parameters are these values (so schedules replay).
#include <fmt/format.h>

#include <memory>
#include <sstream>

#include "checker/engine/program_name.hpp"
#include "checker/heddle.hpp"
#include "models/ptx/expect.hpp"
#include "models/ptx/launch.hpp"
#include "models/ptx/opcodes.hpp"

namespace heddle::ptx {
namespace {

// "launch: grid 2x1x1, block 64x1x1 (2 warps each), cluster 1x1x1": the
// shape the run explores, defaults filled in, in the run's header (issue 50.14).
std::string launch_words(const Launch& l) {
  auto dims = [](const std::array<int, 3>& d) { return fmt::format("{}x{}x{}", d[0], d[1], d[2]); };
  return fmt::format("launch: grid {}, block {} ({} warp{} each), cluster {}", dims(l.grid),
                     dims(l.block), l.warps(), l.warps() == 1 ? "" : "s", dims(l.cluster));
}

Kernel build(const std::map<std::string, std::string>& values) {
  auto get = [&](const char* k, const char* def) {
    auto it = values.find(k);
    return it == values.end() || it->second.empty() ? std::string(def) : it->second;
  };
  std::string file = get("file", ""), entry = get("kernel", "");
  if (entry.empty()) throw UsageError(fmt::format("--ptx {}: name the kernel entry with --kernel NAME", file));
  auto launch = std::make_shared<Launch>();
  Module module = parse_file(file);
  for (const std::string& w : module_warnings(module, entry)) fmt::print(stderr, "{}: warning: {}\n", program_name(), w);
  launch->program = std::make_shared<Program>(decode(module, entry, parse_smem(get("smem", "0"))));
  launch->grid = parse_dims(get("grid", "1"), "--grid");
  launch->block = parse_dims(get("block", "32"), "--block");
  std::string cluster = get("cluster", "");
  apply_cluster(*launch, cluster.empty() ? std::nullopt
                                         : std::optional(parse_dims(cluster, "--cluster")));
  std::istringstream args(get("args", "")), expects(get("expect", ""));
  for (std::string a; args >> a;) launch->args.push_back(parse_arg(a));
  check_args(*launch->program, launch->args);
  auto expected = std::make_shared<std::vector<Expectation>>();  // shared: files may be large
  for (std::string e; expects >> e;) expected->push_back(parse_expect(e, launch->args));
  if (launch->warps() * launch->ctas() > 64)
    throw UsageError("a PTX launch is limited to 64 warps in all (each warp is one heddle thread)");
  Kernel k;
  k.name = "ptx/" + entry;
  k.description = fmt::format("PTX kernel {} from {}", entry, file);
  const bool strict = get("strict", "false") == "true";
  for (const char* p : {"file", "kernel", "grid", "block", "cluster", "args", "smem", "expect", "strict"})
    k.params.push_back(ParamSpec{p, ParamSpec::Type::text, get(p, ""), {}, 0, 0, false, ""});
  k.setup = [launch, expected, strict](const Params&) {
    note(launch_words(*launch));
    gpu::LaunchConfig cfg;
    cfg.ptx_strict = strict;
    cfg.ctas = launch->ctas();
    cfg.cluster = launch->cluster_size();
    cfg.threads.clear();
    for (int w = 0; w < launch->warps(); ++w) cfg.threads.push_back({fmt::format("warp{}", w), w});
    gpu::grid(cfg);
    LaunchState& state = make<LaunchState>(*launch);
    gpu::current_grid().launch([&state](const gpu::ThreadInfo& t) { run_warp(state, t); });
    at_exit([&state, expected] {
      state.observe_buffers();
      for (const Expectation& e : *expected) check_expectation(state, e);
    });
  };
  return k;
}

const Registration registered = front_end(FrontEnd{
    "ptx",
    {{"--ptx", "file", "PTX file from nvcc (-arch=sm_90a -lineinfo) to check"},
     {"--kernel", "kernel", "with --ptx: the kernel entry to launch"},
     {"--grid", "grid", "with --ptx: CTAs X[,Y,Z] (default 1)"},
     {"--block", "block", "with --ptx: threads per CTA X[,Y,Z] (default 32)"},
     {"--smem", "smem", "with --ptx: bytes of dynamic shared memory (extern .shared) per CTA"},
     {"--cluster", "cluster", "with --ptx: CTAs per cluster X[,Y,Z] (default: the kernel's "
                              ".reqnctapercluster, else 1)"},
     {"--arg", "args", "with --ptx: kernel argument NAME=buffer:BYTES | NAME=buffer:FILE (its bytes) | "
                       "NAME=tensormap:BUF,shape=WxH,box=WxH[,elem=E] | NAME=u32:V (one per parameter, "
                       "in order; repeatable)", true},
     {"--expect", "expect", "with --ptx: NAME=FILE[,tol=X]: buffer argument NAME holds FILE's bytes at "
                            "kernel exit (with tol=X: float32 values within X); repeatable", true},
     {"--ptx-strict", "strict", "with --ptx: the ISA's letter for bulk waits: cp.async.bulk.wait_group(.read) "
                                "covers no TMA load's tensormap read (default: the earlier ones of its thread, "
                                "as CUTLASS and DeepGEMM rely on)", false, true}},
    build});

}  // namespace
}  // namespace heddle::ptx
