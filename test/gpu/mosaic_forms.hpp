// Helpers shared by the ports of JAX's Mosaic GPU interpret race tests
// (seed 004): the warp-specialized and thread-axis forms of two-thread kernels.
#pragma once
#include <functional>
#include <string>

#include "models/gpu/gpu.hpp"
#include "models/gpu/pallas.hpp"

namespace heddle::test::mosaic {

/// The `form` parameter: "warp" = one Pallas thread (a warpgroup) whose
/// warps run the body through warp_map; "thread" = num_threads=2, thread axis 't'.
inline const std::vector<std::string> kForms{"warp", "thread"};

/// Declares the launch of a two-thread test in `form` (call first in setup).
inline gpu::Grid& two_thread_grid(const std::string& form) {
  if (form == "warp") return gpu::grid({1, 1, {{"wg0"}}});
  return gpu::grid({1, 1, {{"t0"}, {"t1"}}});
}

/// Launches `body(id)` for logical threads 0 and 1 in `form`
/// (WarpSpecializeHelper.maybe_warp_specialize in the seed file).
inline void launch_two(gpu::Grid& g, const std::string& form, std::function<void(int)> body) {
  if (form == "warp") {
    g.launch([body](const gpu::ThreadInfo&) { gpu::pallas::warp_map(body); });
  } else {
    g.launch([body](const gpu::ThreadInfo& t) { body(t.thread); });
  }
}

}  // namespace heddle::test::mosaic
