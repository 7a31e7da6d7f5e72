// Host helpers the whole programs share: error checks and a 2-D tensormap
// encoded through the driver entry point (as CUTLASS does without -lcuda).
#pragma once
#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

#define CHECK(call)                                                                   \
  do {                                                                                \
    cudaError_t e_ = (call);                                                          \
    if (e_ != cudaSuccess) {                                                          \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,              \
                   cudaGetErrorString(e_));                                           \
      std::exit(3);                                                                   \
    }                                                                                 \
  } while (0)

// cuTensorMapEncodeTiled, through the runtime's driver entry point.
using EncodeTiled = CUresult (*)(CUtensorMap*, CUtensorMapDataType, cuuint32_t, void*,
                                 const cuuint64_t*, const cuuint64_t*, const cuuint32_t*,
                                 const cuuint32_t*, CUtensorMapInterleave, CUtensorMapSwizzle,
                                 CUtensorMapL2promotion, CUtensorMapFloatOOBfill);
inline EncodeTiled encode_tiled() {
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult status;
  CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault,
                                         &status));
  return reinterpret_cast<EncodeTiled>(fn);
}

// A row-major `width` x `rows` tensor of `elem`-byte elements at `global`,
// moved in `box_w` x `box_h` boxes.
inline CUtensorMap tensormap_2d(void* global, int width, int rows, int box_w, int box_h,
                                CUtensorMapDataType type, int elem) {
  CUtensorMap map;
  cuuint64_t dims[2] = {static_cast<cuuint64_t>(width), static_cast<cuuint64_t>(rows)};
  cuuint64_t strides[1] = {static_cast<cuuint64_t>(width) * elem};
  cuuint32_t box[2] = {static_cast<cuuint32_t>(box_w), static_cast<cuuint32_t>(box_h)};
  cuuint32_t element_strides[2] = {1, 1};
  CUresult r = encode_tiled()(&map, type, 2, global, dims, strides, box,
                                            element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE,
                                            CU_TENSOR_MAP_SWIZZLE_NONE,
                                            CU_TENSOR_MAP_L2_PROMOTION_NONE,
                                            CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS) {
    std::fprintf(stderr, "cuTensorMapEncodeTiled failed: %d\n", static_cast<int>(r));
    std::exit(3);
  }
  return map;
}
