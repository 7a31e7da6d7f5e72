// A program that calls a runtime function heddle does not implement
// (CUDA graphs): heddle names it and stops the program with status 2.
#include "app_support.cuh"

__global__ void noop() {}

int main() {
  noop<<<1, 32>>>();
  cudaGraph_t graph;
  CHECK(cudaGraphCreate(&graph, 0));
  std::printf("unknown_call_app: done\n");
  return 0;
}
