// CUTLASS #2162 as a whole program: the epilogue of tma_store_epilogue.cu
// stores one tile per group, and between the groups rewrites the output
// tensormap to point at the next group's D. Run: epilogue_app [shipped|fixed].
// Each D must hold its own group's tile: 1.0 in D0, 101.0 in D1.
#include <cstring>
#include <vector>

#include "../tma_store_epilogue.cu"
#include "app_support.cuh"

int main(int argc, char** argv) {
  const bool fixed = argc > 1 && std::strcmp(argv[1], "fixed") == 0;
  float *d0 = nullptr, *d1 = nullptr;
  void* desc = nullptr;
  CHECK(cudaMalloc(&d0, kBox * sizeof(float)));
  CHECK(cudaMalloc(&d1, kBox * sizeof(float)));
  CHECK(cudaMalloc(&desc, sizeof(CUtensorMap)));
  CHECK(cudaMemset(d0, 0, kBox * sizeof(float)));
  CHECK(cudaMemset(d1, 0, kBox * sizeof(float)));
  CUtensorMap map = tensormap_2d(d0, kBox, 1, kBox, 1, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 4);
  CHECK(cudaMemcpy(desc, &map, sizeof map, cudaMemcpyHostToDevice));
  if (fixed) epilogue_fixed<<<1, 64>>>(desc, d1, 1);
  else epilogue_shipped<<<1, 64>>>(desc, d1, 1);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  std::vector<float> h0(kBox), h1(kBox);
  CHECK(cudaMemcpy(h0.data(), d0, kBox * sizeof(float), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(h1.data(), d1, kBox * sizeof(float), cudaMemcpyDeviceToHost));
  int wrong = 0;
  for (int i = 0; i < kBox; ++i) wrong += (h0[i] != 1.0f) + (h1[i] != 101.0f);
  std::printf("epilogue_app (%s): %d wrong elements: %s\n", fixed ? "fixed" : "shipped", wrong,
              wrong == 0 ? "Passed" : "FAILED");
  return wrong == 0 ? 0 : 1;
}
