// CTA-wide barrier calls (bar.sync, bar.arrive, __syncthreads, __syncwarp):
// they find the caller's CTA and warp in the grid, then use its barriers.
#pragma once
#include <cstdint>
#include <source_location>

namespace heddle::gpu {

/// bar.sync id, count in the caller's CTA (count in heddle threads).
void bar_sync(int id, std::uint32_t count, std::source_location loc = std::source_location::current());
/// bar.arrive id, count in the caller's CTA.
void bar_arrive(int id, std::uint32_t count,
                std::source_location loc = std::source_location::current());
/// __syncthreads(): bar.sync 0 with every heddle thread of the CTA.
void syncthreads(std::source_location loc = std::source_location::current());
/// __syncwarp(): a barrier among the heddle threads of the caller's warp
/// (a no-op when the model gives the warp one thread).
void syncwarp(std::source_location loc = std::source_location::current());

}  // namespace heddle::gpu
