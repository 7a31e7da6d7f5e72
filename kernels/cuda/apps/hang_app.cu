// A kernel that never finishes: warp 1 waits for a flag that warp 0 was
// meant to set (it sets another one). heddle stops it at the step budget
// and names the loop.
#include "app_support.cuh"

__global__ void handshake(int* flags) {
  if (threadIdx.x == 0) atomicExch(&flags[1], 1);  // the bug: flags[0] was meant
  if (threadIdx.x == 32)
    while (atomicAdd(&flags[0], 0) == 0) {  // heddle-cuda: spins forever
    }
}

int main() {
  int* flags = nullptr;
  CHECK(cudaMalloc(&flags, 2 * sizeof(int)));
  CHECK(cudaMemset(flags, 0, 2 * sizeof(int)));
  handshake<<<1, 64>>>(flags);
  CHECK(cudaDeviceSynchronize());
  std::printf("hang_app: done\n");
  return 0;
}
