// The driver calls heddle implements (tensormap encoding, device queries),
// in both libraries: libcuda.so.1 exports them under their names, and
// libcudart hands them out through cudaGetDriverEntryPoint.
#pragma once
#include <cuda.h>

#include <cstdio>
#include <cstring>
#include <exception>
#include <string>

#include "models/cuda/session.hpp"
#include "models/cuda/tensormap.hpp"

namespace heddle::cuda::driver {

inline CUresult encode_tiled(CUtensorMap* map, CUtensorMapDataType type, cuuint32_t rank,
                             void* address, const cuuint64_t* dims, const cuuint64_t* strides,
                             const cuuint32_t* box, const cuuint32_t* element_strides,
                             CUtensorMapInterleave interleave, CUtensorMapSwizzle swizzle,
                             CUtensorMapL2promotion, CUtensorMapFloatOOBfill oob_fill) {
  std::string invalid;
  try {
    invalid = heddle::cuda::encode_tiled(
        map, TiledArgs{static_cast<int>(type), rank, address, dims, strides, box, element_strides,
                       static_cast<int>(interleave), static_cast<int>(swizzle),
                       static_cast<int>(oob_fill)});
  } catch (const std::exception& e) {
    fail(e.what());
  }
  if (invalid.empty()) return CUDA_SUCCESS;
  // The driver refuses these with CUDA_ERROR_INVALID_VALUE; heddle says why.
  std::fprintf(stderr, "heddle: cuTensorMapEncodeTiled: invalid argument: %s\n", invalid.c_str());
  return CUDA_ERROR_INVALID_VALUE;
}

inline CUresult encode_im2col(CUtensorMap*, CUtensorMapDataType, cuuint32_t, void*,
                              const cuuint64_t*, const cuuint64_t*, const int*, const int*,
                              cuuint32_t, cuuint32_t, const cuuint32_t*, CUtensorMapInterleave,
                              CUtensorMapSwizzle, CUtensorMapL2promotion, CUtensorMapFloatOOBfill) {
  fail("cuTensorMapEncodeIm2col: im2col tensormaps are not modelled by heddle's TMA model");
}

inline CUresult init(unsigned) { return CUDA_SUCCESS; }
inline CUresult driver_version(int* v) {
  *v = 13000;
  return CUDA_SUCCESS;
}
inline CUresult device_get(CUdevice* d, int ordinal) {
  *d = 0;
  return ordinal == 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_DEVICE;
}
inline CUresult device_count(int* n) {
  *n = 1;
  return CUDA_SUCCESS;
}

/// The implementation of driver function `name`, or nullptr.
inline void* lookup(const char* name) {
  std::string n = name;
  if (n == "cuTensorMapEncodeTiled") return reinterpret_cast<void*>(&encode_tiled);
  if (n == "cuTensorMapEncodeIm2col") return reinterpret_cast<void*>(&encode_im2col);
  if (n == "cuInit") return reinterpret_cast<void*>(&init);
  if (n == "cuDriverGetVersion") return reinterpret_cast<void*>(&driver_version);
  if (n == "cuDeviceGet") return reinterpret_cast<void*>(&device_get);
  if (n == "cuDeviceGetCount") return reinterpret_cast<void*>(&device_count);
  return nullptr;
}

}  // namespace heddle::cuda::driver
