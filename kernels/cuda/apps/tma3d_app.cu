// A 3-D TMA round trip as CUTLASS's kernels use it: a tensor with padded
// (non-dense) row and plane strides, a 128x8x2 box of bytes with the
// 128-byte swizzle, placed partly outside the tensor. The kernel loads the
// box into shared memory (cp.async.bulk.tensor.3d, zero fill outside),
// copies shared memory out as it lies (swizzled), and stores the box back
// into a second tensor (the part outside is not written). The host checks
// every byte against the CUDA driver's documented semantics.
#include <cstdint>
#include <cstdio>
#include <vector>

#include "../hopper_ops.cuh"
#include "app_support.cuh"

constexpr int kX = 160, kY = 12, kZ = 3;                      // tensor extents, elements (bytes)
constexpr int kRow = 176, kPlane = kRow * kY + 32;            // padded strides, bytes
constexpr int kBoxX = 128, kBoxY = 8, kBoxZ = 2;              // the box
constexpr int kBox = kBoxX * kBoxY * kBoxZ;
constexpr int kCx = 64, kCy = 8, kCz = 1;                     // the box's corner: partly outside

__global__ void tma3d_round_trip(const __grid_constant__ CUtensorMap in,
                                 const __grid_constant__ CUtensorMap out, std::uint8_t* raw) {
  __shared__ alignas(1024) std::uint8_t box[kBox];
  __shared__ alignas(8) std::uint64_t full;
  if (threadIdx.x == 0) {
    mbar_init(&full, 1);
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    mbar_arrive_expect_tx(&full, kBox);
    asm volatile(
        "cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes"
        " [%0], [%1, {%2, %3, %4}], [%5];" ::"r"(smem_addr(box)),
        "l"(&in), "r"(kCx), "r"(kCy), "r"(kCz), "r"(smem_addr(&full))
        : "memory");
  }
  __syncwarp();
  mbar_wait(&full, 0);
  for (int i = threadIdx.x; i < kBox; i += 32) raw[i] = box[i];
  if (threadIdx.x == 0) {
    asm volatile("cp.async.bulk.tensor.3d.global.shared::cta.tile.bulk_group [%0, {%1, %2, %3}], [%4];"
                 ::"l"(&out), "r"(kCx), "r"(kCy), "r"(kCz), "r"(smem_addr(box))
                 : "memory");
    bulk_commit_group();
    asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
  }
}

namespace {

CUtensorMap tensormap_3d(void* global) {
  CUtensorMap map;
  cuuint64_t dims[3] = {kX, kY, kZ}, strides[2] = {kRow, kPlane};
  cuuint32_t box[3] = {kBoxX, kBoxY, kBoxZ}, element_strides[3] = {1, 1, 1};
  if (encode_tiled()(&map, CU_TENSOR_MAP_DATA_TYPE_UINT8, 3, global, dims, strides, box,
                                   element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE,
                                   CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_NONE,
                                   CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) != CUDA_SUCCESS) {
    std::fprintf(stderr, "cuTensorMapEncodeTiled failed\n");
    std::exit(3);
  }
  return map;
}

std::uint8_t value(int x, int y, int z) { return static_cast<std::uint8_t>(1 + (x * 7 + y * 31 + z * 101) % 251); }

// Box byte (bx, by, bz) lies in shared memory at its dense offset with the
// 16-byte chunk index XOR the row index mod 8 (the 128-byte swizzle).
int swizzled(int bx, int by, int bz) {
  const int dense = (bz * kBoxY + by) * kBoxX + bx;
  return dense ^ ((dense >> 7 & 7) << 4);
}

}  // namespace

int main() {
  cudaDeviceProp props;  // persistent kernels size their grids by the SM count
  CHECK(cudaGetDeviceProperties(&props, 0));
  std::printf("tma3d_app: a device with %d SMs\n", props.multiProcessorCount);
  const std::size_t bytes = std::size_t{kPlane} * kZ;
  std::vector<std::uint8_t> host(bytes, 0xEE);  // padding holds 0xEE
  for (int z = 0; z < kZ; ++z)
    for (int y = 0; y < kY; ++y)
      for (int x = 0; x < kX; ++x) host[static_cast<std::size_t>(z) * kPlane + y * kRow + x] = value(x, y, z);
  std::uint8_t *din = nullptr, *dout = nullptr, *draw = nullptr;
  CHECK(cudaMalloc(&din, bytes));
  CHECK(cudaMalloc(&dout, bytes));
  CHECK(cudaMalloc(&draw, kBox));
  CHECK(cudaMemcpy(din, host.data(), bytes, cudaMemcpyHostToDevice));
  CHECK(cudaMemset(dout, 0, bytes));
  tma3d_round_trip<<<1, 32>>>(tensormap_3d(din), tensormap_3d(dout), draw);
  CHECK(cudaGetLastError());
  std::vector<std::uint8_t> raw(kBox), out(bytes);
  CHECK(cudaMemcpy(raw.data(), draw, kBox, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(out.data(), dout, bytes, cudaMemcpyDeviceToHost));
  int wrong = 0;
  for (int bz = 0; bz < kBoxZ; ++bz)
    for (int by = 0; by < kBoxY; ++by)
      for (int bx = 0; bx < kBoxX; ++bx) {
        const int x = kCx + bx, y = kCy + by, z = kCz + bz;
        const bool inside = x < kX && y < kY && z < kZ;
        wrong += raw[swizzled(bx, by, bz)] != (inside ? value(x, y, z) : 0);
      }
  for (int z = 0; z < kZ; ++z)
    for (int y = 0; y < kY; ++y)
      for (int x = 0; x < kRow; ++x) {
        const bool stored = x < kX && x >= kCx && y >= kCy && z >= kCz;
        wrong += out[static_cast<std::size_t>(z) * kPlane + y * kRow + x] != (stored ? value(x, y, z) : 0);
      }
  std::printf("tma3d_app: %d wrong bytes: %s\n", wrong, wrong == 0 ? "Passed" : "FAILED");
  return wrong == 0 ? 0 : 1;
}
