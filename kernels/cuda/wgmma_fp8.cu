// One 64x8x32 fp8 wgmma tile per entry (and one 64x8x8 tf32 tile), to check
// the PTX front end's fp8 and tf32 mma (PTX ISA 9.7.15, .m64nNk32.f32 with
// .e4m3/.e5m2 operands, .m64nNk8.f32.tf32.tf32): one
// warpgroup writes A (64x32) and B (8x32) as fp8 bytes into shared memory,
// fences them into the async proxy, multiplies, and compares each
// accumulator of its D fragment with the product by plain arithmetic:
// `bad` counts mismatches. The four type pairs; no swizzle for two of them,
// the 128-byte swizzle for the others (as in wgmma_tile.cu, 1 byte per element).
#include "hopper_ops.cuh"

__device__ int a_value(int r, int k) { return (r + 2 * k) % 7 - 3; }
__device__ int b_value(int n, int k) { return (3 * n + k) % 5 - 2; }

// The fp8 bits of a small integer -3..3 (exact in both formats; OCP FP8 1.0).
__device__ std::uint8_t fp8_bits(int v, bool e5m2) {
  int m = v < 0 ? -v : v;
  std::uint8_t bits = m == 0 ? 0 : e5m2 ? (m == 1 ? 0x3c : m == 2 ? 0x40 : 0x42)
                                        : (m == 1 ? 0x38 : m == 2 ? 0x40 : 0x44);
  return v < 0 ? bits | 0x80 : bits;
}

// The byte offset of byte k (0..31) of row `row` of a K-major operand (32 bytes a row).
template <bool kSwizzle128>
__device__ int offset(int row, int k) {
  if (!kSwizzle128) return row / 8 * 256 + k / 16 * 128 + row % 8 * 16 + k % 16;
  int chunk = (k / 16) ^ (row % 8);
  return row / 8 * 1024 + row % 8 * 128 + chunk * 16 + k % 16;
}

#define WGMMA(K, TA, TB)                                                                          \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %6, 0;\n"                                         \
               "wgmma.mma_async.sync.aligned.m64n8k" K ".f32." TA "." TB                           \
               " {%0, %1, %2, %3}, %4, %5, p, 1, 1;\n}\n"                                          \
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])                                    \
               : "l"(da), "l"(db), "r"(0))

template <bool kA5, bool kB5, bool kSwizzle128>
__device__ void tile(float* out, int* bad) {
  __shared__ alignas(1024) std::uint8_t sA[8 * 1024];
  __shared__ alignas(1024) std::uint8_t sB[1024];
  for (int i = threadIdx.x; i < 64 * 32; i += blockDim.x) {
    int r = i / 32, k = i % 32;
    sA[offset<kSwizzle128>(r, k)] = fp8_bits(a_value(r, k), kA5);
    if (r < 8) sB[offset<kSwizzle128>(r, k)] = fp8_bits(b_value(r, k), kB5);
  }
  fence_proxy_async_shared();
  __syncthreads();
  std::uint64_t da = wgmma_desc(sA, 128, kSwizzle128 ? 1024 : 256);
  std::uint64_t db = wgmma_desc(sB, 128, kSwizzle128 ? 1024 : 256);
  if (kSwizzle128) {
    da |= std::uint64_t{1} << 62;
    db |= std::uint64_t{1} << 62;
  }
  float d[4] = {0, 0, 0, 0};
  wgmma_fence();
  if (!kA5 && !kB5) WGMMA("32", "e4m3", "e4m3");
  if (!kA5 && kB5) WGMMA("32", "e4m3", "e5m2");
  if (kA5 && !kB5) WGMMA("32", "e5m2", "e4m3");
  if (kA5 && kB5) WGMMA("32", "e5m2", "e5m2");
  wgmma_commit();
  wgmma_wait<0>();
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  int wrong = 0;
  for (int i = 0; i < 4; ++i) {
    int row = 16 * warp + lane / 4 + 8 * (i / 2), col = 2 * (lane % 4) + i % 2;
    int want = 0;
    for (int k = 0; k < 32; ++k) want += a_value(row, k) * b_value(col, k);
    wrong += d[i] != static_cast<float>(want);
    out[row * 8 + col] = d[i];
  }
  if (wrong) atomicAdd(bad, wrong);
}

extern "C" __global__ void wgmma_fp8_e4m3_e4m3(float* out, int* bad) { tile<false, false, false>(out, bad); }
extern "C" __global__ void wgmma_fp8_e4m3_e5m2(float* out, int* bad) { tile<false, true, true>(out, bad); }
extern "C" __global__ void wgmma_fp8_e5m2_e4m3(float* out, int* bad) { tile<true, false, false>(out, bad); }
extern "C" __global__ void wgmma_fp8_e5m2_e5m2(float* out, int* bad) { tile<true, true, true>(out, bad); }

// tf32: K = 8 f32 values a row (the mma reads their top 19 bits; small integers are exact).
extern "C" __global__ void wgmma_tf32(float* out, int* bad) {
  __shared__ alignas(1024) float sA[64 * 8];
  __shared__ alignas(1024) float sB[8 * 8];
  auto* a8 = reinterpret_cast<std::uint8_t*>(sA);
  auto* b8 = reinterpret_cast<std::uint8_t*>(sB);
  for (int i = threadIdx.x; i < 64 * 8; i += blockDim.x) {
    int r = i / 8, k = i % 8;
    *reinterpret_cast<float*>(a8 + offset<false>(r, 4 * k)) = static_cast<float>(a_value(r, k));
    if (r < 8) *reinterpret_cast<float*>(b8 + offset<false>(r, 4 * k)) = static_cast<float>(b_value(r, k));
  }
  fence_proxy_async_shared();
  __syncthreads();
  std::uint64_t da = wgmma_desc(sA, 128, 256), db = wgmma_desc(sB, 128, 256);
  float d[4] = {0, 0, 0, 0};
  wgmma_fence();
  WGMMA("8", "tf32", "tf32");
  wgmma_commit();
  wgmma_wait<0>();
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  int wrong = 0;
  for (int i = 0; i < 4; ++i) {
    int row = 16 * warp + lane / 4 + 8 * (i / 2), col = 2 * (lane % 4) + i % 2;
    int want = 0;
    for (int k = 0; k < 8; ++k) want += a_value(row, k) * b_value(col, k);
    wrong += d[i] != static_cast<float>(want);
    out[row * 8 + col] = d[i];
  }
  if (wrong) atomicAdd(bad, wrong);
}
