// One 64x8x16 wgmma tile, to check what the PTX front end computes: one
// warpgroup writes A (64x16) and B (8x16) as f16 into shared memory in the
// layout its descriptors name, fences them into the async proxy, multiplies
// with wgmma.mma_async, and compares each accumulator of its D fragment
// with the product computed by plain arithmetic: `bad` counts mismatches.
// The layouts: no swizzle (8x16-byte core matrices) and the 128-byte
// swizzle (16-byte chunk c of row r stored at chunk c ^ r % 8 of its
// 128-byte row), the two CUTLASS uses most.
#include "hopper_ops.cuh"

__device__ int a_value(int r, int k) { return (r + 2 * k) % 7 - 3; }
__device__ int b_value(int n, int k) { return (3 * n + k) % 5 - 2; }

// The f16 bits of a small integer -3..3 (exact in f16).
__device__ std::uint16_t half_bits(int v) {
  int m = v < 0 ? -v : v;
  std::uint16_t bits = m == 0 ? 0 : m == 1 ? 0x3c00 : m == 2 ? 0x4000 : 0x4200;
  return v < 0 ? bits | 0x8000 : bits;
}

// The byte offset of element (row, k) of a K-major 16-wide f16 operand.
template <bool kSwizzle128>
__device__ int offset(int row, int k) {
  int byte = 2 * k;
  if (!kSwizzle128) return row / 8 * 256 + byte / 16 * 128 + row % 8 * 16 + byte % 16;
  int chunk = (byte / 16) ^ (row % 8);
  return row / 8 * 1024 + row % 8 * 128 + chunk * 16 + byte % 16;
}

template <bool kSwizzle128>
__device__ void tile(float* out, int* bad) {
  __shared__ alignas(1024) std::uint8_t sA[8 * 1024];
  __shared__ alignas(1024) std::uint8_t sB[1024];
  for (int i = threadIdx.x; i < 64 * 16; i += blockDim.x) {
    int r = i / 16, k = i % 16;
    *reinterpret_cast<std::uint16_t*>(sA + offset<kSwizzle128>(r, k)) = half_bits(a_value(r, k));
    if (r < 8)
      *reinterpret_cast<std::uint16_t*>(sB + offset<kSwizzle128>(r, k)) = half_bits(b_value(r, k));
  }
  fence_proxy_async_shared();  // the generic writes, before the async-proxy reads
  __syncthreads();
  std::uint64_t da = wgmma_desc(sA, 128, kSwizzle128 ? 1024 : 256);
  std::uint64_t db = wgmma_desc(sB, 128, kSwizzle128 ? 1024 : 256);
  if (kSwizzle128) {  // layout type 1: the 128-byte swizzle (bits 62-63)
    da |= std::uint64_t{1} << 62;
    db |= std::uint64_t{1} << 62;
  }
  float d[4] = {0, 0, 0, 0};
  wgmma_fence();
  wgmma_m64n8k16(d, da, db, 0);
  wgmma_commit();
  wgmma_wait<0>();
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  int wrong = 0;
  for (int i = 0; i < 4; ++i) {
    int row = 16 * warp + lane / 4 + 8 * (i / 2), col = 2 * (lane % 4) + i % 2;
    int want = 0;
    for (int k = 0; k < 16; ++k) want += a_value(row, k) * b_value(col, k);
    wrong += d[i] != static_cast<float>(want);
    out[row * 8 + col] = d[i];
  }
  if (wrong) atomicAdd(bad, wrong);
}

extern "C" __global__ void wgmma_tile_interleave(float* out, int* bad) { tile<false>(out, bad); }
extern "C" __global__ void wgmma_tile_swizzle128(float* out, int* bad) { tile<true>(out, bad); }
