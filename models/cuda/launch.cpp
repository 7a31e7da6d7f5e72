#include "models/cuda/launch.hpp"

#include <fmt/format.h>
#include <fnmatch.h>

#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>

#include "checker/program_runner.hpp"
#include "models/cuda/device_memory.hpp"
#include "models/cuda/session.hpp"
#include "models/gpu/gpu.hpp"
#include "models/ptx/launch.hpp"
#include "models/ptx/warp.hpp"

namespace heddle::cuda {
namespace {

// Each warp is one heddle thread; a launch explores at most this many.
constexpr int kMaxWarps = 64;

int launch_count = 0;

bool matches(const std::string& glob, const KernelEntry& k) {
  return fnmatch(glob.c_str(), k.name.c_str(), 0) == 0 ||
         fnmatch(glob.c_str(), k.mangled.c_str(), 0) == 0;
}

std::string dims(const std::array<int, 3>& d) {
  return d[1] == 1 && d[2] == 1 ? fmt::format("{}", d[0]) : fmt::format("{},{},{}", d[0], d[1], d[2]);
}

// Maps every device block into the execution at its own address, holding
// its pre-launch contents; at exit, writes the final contents back.
void map_device_memory(const Snapshot& pre) {
  std::vector<std::pair<Region*, std::uint64_t>> mapped;
  for (const auto& [block, bytes] : pre.blocks) {
    if (bytes.empty()) continue;
    Region& r = make<Region>(block->name, 1, bytes.size());
    std::memcpy(r.bytes(), bytes.data(), bytes.size());
    gpu::current_grid().map_global_at(r, block->base);
    mapped.emplace_back(&r, block->base);
  }
  at_exit([mapped] {
    for (const auto& [r, base] : mapped) {
      const auto* p = reinterpret_cast<const std::uint8_t*>(r->bytes());
      std::memcpy(reinterpret_cast<void*>(base), p, r->size());
      std::uint64_t h = 1469598103934665603ull;  // FNV-1a: executions' results compared
      for (std::size_t i = 0; i < r->size(); ++i) h = (h ^ p[i]) * 1099511628211ull;
      observe(r->name(), fmt::format("{:016x}", h));
    }
  });
}

// The heddle kernel of one part of a launch (all of it unless batched).
Kernel make_kernel(const LaunchRequest& rq, std::shared_ptr<ptx::Launch> launch,
                   std::shared_ptr<const Snapshot> pre, int cluster) {
  Kernel k;
  k.name = "cuda/" + rq.kernel->name;
  k.description = fmt::format("launch {} of {}", launch_count, rq.kernel->signature);
  auto param = [&](const char* name, std::string value) {
    k.params.push_back(ParamSpec{name, ParamSpec::Type::text, std::move(value), {}, 0, 0, false, ""});
  };
  param("launch", std::to_string(launch_count));
  param("kernel", rq.kernel->mangled);
  param("grid", dims(rq.grid));
  param("block", dims(rq.block));
  if (launch->batch > 0) param("ctas", fmt::format("{}+{}", launch->first_cta, launch->batch));
  k.setup = [launch, pre, cluster](const Params&) {
    gpu::LaunchConfig cfg;
    cfg.ctas = launch->ctas();
    cfg.cluster = cluster;
    cfg.threads.clear();
    for (int w = 0; w < launch->warps(); ++w) cfg.threads.push_back({fmt::format("warp{}", w), w});
    gpu::grid(cfg);
    map_device_memory(*pre);
    ptx::LaunchState& state = make<ptx::LaunchState>(*launch);
    gpu::current_grid().launch([&state](const gpu::ThreadInfo& t) { ptx::run_warp(state, t); });
  };
  return k;
}

std::string default_out(const KernelEntry& k) {
  std::string name;
  for (char c : k.name) name += std::isalnum(static_cast<unsigned char>(c)) || c == '_' ? c : '_';
  // A template kernel's name (CUTLASS's device_kernel<...>) outgrows a file
  // name (255 bytes): keep its start, the launch number tells it apart.
  if (name.size() > 64) name.resize(64);
  return fmt::format("heddle-cex.cuda.{}.launch{}.json", name, launch_count);
}

// Explores one part of a launch through the checker; a bug ends the program.
std::string explore_part(const LaunchRequest& rq, std::shared_ptr<ptx::Launch> launch,
                         std::shared_ptr<const Snapshot> pre, int cluster, bool checked) {
  Kernel k = make_kernel(rq, launch, pre, cluster);
  ProgramLaunch pl{launch_count, checked, default_out(*rq.kernel)};
  LaunchOutcome out;
  try {
    out = launch_checker().check(k, pl, options().given);
  } catch (const std::exception& e) {
    fail(e.what());
  }
  if (!out.bug) return out.text;
  std::fflush(stdout);
  std::fputs(out.text.c_str(), stdout);
  std::printf("heddle cuda: launch %d, kernel %s: the program is stopped here.\n", launch_count,
              rq.kernel->signature.c_str());
  stop_for_bug();
}

// The raw bytes of each parameter, as the host passed them.
std::vector<std::vector<std::uint8_t>> raw_params(const LaunchRequest& rq) {
  std::vector<std::vector<std::uint8_t>> raw;
  for (std::size_t i = 0; i < rq.kernel->param_bytes.size(); ++i) {
    const auto* p = static_cast<const std::uint8_t*>(rq.args[i]);
    raw.emplace_back(p, p + rq.kernel->param_bytes[i]);
  }
  return raw;
}

}  // namespace

int launches() { return launch_count; }

void run_launch(const LaunchRequest& rq) {
  ++launch_count;
  const auto start = std::chrono::steady_clock::now();
  const std::uint64_t instructions_before = ptx::warp_instructions_run();
  const KernelEntry& entry = *rq.kernel;
  const bool checked = matches(options().check, entry);
  auto launch = std::make_shared<ptx::Launch>();
  launch->grid = rq.grid;
  launch->block = rq.block;
  launch->raw = raw_params(rq);
  try {
    launch->program = program_for(*rq.kernel, static_cast<std::uint32_t>(rq.dynamic_shared));
    const bool asked = rq.cluster[0] * rq.cluster[1] * rq.cluster[2] > 1;
    ptx::apply_cluster(*launch, asked ? std::optional(rq.cluster) : std::nullopt);
  } catch (const std::exception& e) {
    fail(fmt::format("launch {} of {}: {}", launch_count, entry.signature, e.what()));
  }
  const int cluster = launch->cluster_size();
  const int ctas = launch->ctas(), warps = launch->warps();
  if (warps > kMaxWarps)
    fail(fmt::format("launch {} of {}: {} threads per block are {} warps; heddle interprets at "
                     "most {} warps per launch",
                     launch_count, entry.signature, launch->threads(), warps, kMaxWarps));
  auto pre = std::make_shared<const Snapshot>(snapshot(device_memory()));
  std::string line;
  if (warps * ctas <= kMaxWarps) {
    line = explore_part(rq, launch, pre, cluster, checked);
  } else if (checked) {
    fail(fmt::format("launch {} of {} ({} CTAs of {} warps): heddle explores at most {} warps "
                     "per launch; shrink the problem for the checked launch, or leave it out of "
                     "--check (then it runs one schedule, {} warps at a time)",
                     launch_count, entry.signature, ctas, warps, kMaxWarps, kMaxWarps));
  } else {  // one schedule, a few clusters of CTAs at a time (they cannot wait on each other)
    const int per = std::max(1, kMaxWarps / (warps * cluster)) * cluster;
    for (int first = 0; first < ctas; first += per) {
      auto part = std::make_shared<ptx::Launch>(*launch);
      part->first_cta = first;
      part->batch = std::min(per, ctas - first);
      explore_part(rq, part, std::make_shared<const Snapshot>(snapshot(device_memory())), cluster, false);
    }
    line = fmt::format("one schedule, {} CTAs at a time", per);
  }
  // The interpreter's speed on this launch (issue 46): warp instructions of
  // all its executions over its wall time, setup and race checks included.
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const std::uint64_t instructions = ptx::warp_instructions_run() - instructions_before;
  std::string summary =
      fmt::format("launch {} {}<<<{}, {}>>>: {}; {} warp instructions in {:.2f} s ({:.0f}/s)",
                  launch_count, entry.name, dims(rq.grid), dims(rq.block), line, instructions,
                  seconds, static_cast<double>(instructions) / seconds);
  std::fprintf(stderr, "heddle: %s\n", summary.c_str());
  record(summary);  // "launch N ...": heddle cuda counts these lines
}

}  // namespace heddle::cuda
