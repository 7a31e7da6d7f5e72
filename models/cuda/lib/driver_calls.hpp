// The driver calls heddle implements (tensormap encoding, device queries),
// in both libraries: libcuda.so.1 exports them under their names, and
// libcudart hands them out through cudaGetDriverEntryPoint.
#pragma once
#include <cuda.h>

#include <cstring>
#include <exception>
#include <string>

#include "models/cuda/session.hpp"
#include "models/cuda/tensormap.hpp"

namespace heddle::cuda::driver {

inline CUresult encode_tiled(CUtensorMap* map, CUtensorMapDataType type, cuuint32_t rank,
                             void* address, const cuuint64_t* dims, const cuuint64_t* strides,
                             const cuuint32_t* box, const cuuint32_t* element_strides,
                             CUtensorMapInterleave, CUtensorMapSwizzle, CUtensorMapL2promotion,
                             CUtensorMapFloatOOBfill) {
  try {
    heddle::cuda::encode_tiled(map, static_cast<int>(type), rank, address, dims, strides, box,
                               element_strides);
  } catch (const std::exception& e) {
    fail(e.what());
  }
  return CUDA_SUCCESS;
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
