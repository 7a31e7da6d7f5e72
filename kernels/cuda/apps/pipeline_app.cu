// A TMA + mbarrier producer/consumer pipeline as a whole program: the
// mainloop of tma_load_pipeline.cu sums k_tiles rows of A in every consumer
// warp. Run: pipeline_app [correct|early_release].
#include <cstring>
#include <vector>

#include "../tma_load_pipeline.cu"
#include "app_support.cuh"

int main(int argc, char** argv) {
  const bool early = argc > 1 && std::strcmp(argv[1], "early_release") == 0;
  constexpr int kTiles = 3, kConsumers = 2;
  std::vector<int> a(kTile * kTiles);
  long expect = 0;
  for (int i = 0; i < kTile * kTiles; ++i) {
    a[i] = i % 13 + 1;
    expect += a[i];
  }
  int *da = nullptr, *sums = nullptr;
  void* desc = nullptr;
  CHECK(cudaMalloc(&da, a.size() * sizeof(int)));
  CHECK(cudaMalloc(&sums, kConsumers * sizeof(int)));
  CHECK(cudaMalloc(&desc, sizeof(CUtensorMap)));
  CHECK(cudaMemcpy(da, a.data(), a.size() * sizeof(int), cudaMemcpyHostToDevice));
  CUtensorMap map = tensormap_2d(da, kTile, kTiles, kTile, 1, CU_TENSOR_MAP_DATA_TYPE_INT32, 4);
  CHECK(cudaMemcpy(desc, &map, sizeof map, cudaMemcpyHostToDevice));
  const int threads = 32 * (1 + kConsumers);
  if (early) pipeline_early_release<<<1, threads>>>(desc, sums, kTiles);
  else pipeline_correct<<<1, threads>>>(desc, sums, kTiles);
  CHECK(cudaGetLastError());
  int h[kConsumers];
  CHECK(cudaMemcpy(h, sums, sizeof h, cudaMemcpyDeviceToHost));
  int wrong = 0;
  for (int c = 0; c < kConsumers; ++c) wrong += h[c] != expect;
  std::printf("pipeline_app (%s): sums %d %d, expected %ld: %s\n", early ? "early_release" : "correct",
              h[0], h[1], expect, wrong == 0 ? "Passed" : "FAILED");
  return wrong == 0 ? 0 : 1;
}
