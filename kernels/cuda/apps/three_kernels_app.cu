// A program with the usual shape of a CUDA test: an init kernel fills the
// input, the kernel under test sums each block's slice in shared memory,
// a verification kernel recomputes every sum and counts mismatches. Run
// under `heddle cuda --check block_sum`: only the middle launch is explored.
// Run: three_kernels_app [racy] (racy drops the barrier between the
// shared-memory writes and the reads of the tree reduction).
#include <cstring>

#include "app_support.cuh"

constexpr int kBlocks = 64, kThreads = 64;

__global__ void init(int* input) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  input[i] = i % 7 + 1;
}

template <bool kRacy>
__device__ void reduce(const int* input, int* sums) {
  __shared__ int part[kThreads];
  part[threadIdx.x] = input[blockIdx.x * blockDim.x + threadIdx.x];
  if (!kRacy) __syncthreads();
  for (int half = blockDim.x / 2; half > 0; half /= 2) {
    if (threadIdx.x < half) part[threadIdx.x] += part[threadIdx.x + half];
    __syncthreads();
  }
  if (threadIdx.x == 0) sums[blockIdx.x] = part[0];
}

__global__ void block_sum(const int* input, int* sums) { reduce<false>(input, sums); }
__global__ void block_sum_racy(const int* input, int* sums) { reduce<true>(input, sums); }

__global__ void verify(const int* input, const int* sums, int* mismatches) {
  if (threadIdx.x != 0) return;
  int expect = 0;
  for (int i = 0; i < kThreads; ++i) expect += input[blockIdx.x * kThreads + i];
  if (sums[blockIdx.x] != expect) atomicAdd(mismatches, 1);
}

int main(int argc, char** argv) {
  const bool racy = argc > 1 && std::strcmp(argv[1], "racy") == 0;
  int *input = nullptr, *sums = nullptr, *mismatches = nullptr;
  CHECK(cudaMalloc(&input, kBlocks * kThreads * sizeof(int)));
  CHECK(cudaMalloc(&sums, kBlocks * sizeof(int)));
  CHECK(cudaMalloc(&mismatches, sizeof(int)));
  CHECK(cudaMemset(mismatches, 0, sizeof(int)));
  init<<<kBlocks, kThreads>>>(input);
  if (racy) block_sum_racy<<<2, kThreads>>>(input, sums);
  else block_sum<<<2, kThreads>>>(input, sums);
  verify<<<2, 32>>>(input, sums, mismatches);
  CHECK(cudaGetLastError());
  int host_sums[2], bad = -1;
  CHECK(cudaMemcpy(host_sums, sums, sizeof host_sums, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(&bad, mismatches, sizeof bad, cudaMemcpyDeviceToHost));
  int expect0 = 0;  // plain arithmetic, independent of every kernel
  for (int i = 0; i < kThreads; ++i) expect0 += i % 7 + 1;
  const bool ok = bad == 0 && host_sums[0] == expect0;
  std::printf("three_kernels_app: sums %d %d (block 0 expects %d), %d mismatches: %s\n",
              host_sums[0], host_sums[1], expect0, bad, ok ? "Passed" : "FAILED");
  return ok ? 0 : 1;
}
