// A kernel that writes one element past its buffer (64 threads, 63 ints):
// heddle reports the faulting store at its .cu line.
#include "app_support.cuh"

__global__ void scale(int* out, int n) {
  out[threadIdx.x] = 2 * n;  // heddle-cuda: out of bounds
}

int main() {
  int* out = nullptr;
  CHECK(cudaMalloc(&out, 63 * sizeof(int)));
  scale<<<1, 64>>>(out, 63);
  CHECK(cudaDeviceSynchronize());
  std::printf("oob_app: done\n");
  return 0;
}
