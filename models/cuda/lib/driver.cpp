// libcuda.so.1, heddle's stand-in for the driver library that programs
// linked with -lcuda load (CUTLASS calls cuTensorMapEncodeTiled directly).
#include <fmt/format.h>

#include "models/cuda/lib/driver_calls.hpp"

using namespace heddle::cuda;

extern "C" {

CUresult cuTensorMapEncodeTiled(CUtensorMap* map, CUtensorMapDataType type, cuuint32_t rank,
                                void* address, const cuuint64_t* dims, const cuuint64_t* strides,
                                const cuuint32_t* box, const cuuint32_t* element_strides,
                                CUtensorMapInterleave interleave, CUtensorMapSwizzle swizzle,
                                CUtensorMapL2promotion promotion, CUtensorMapFloatOOBfill fill) {
  return driver::encode_tiled(map, type, rank, address, dims, strides, box, element_strides,
                              interleave, swizzle, promotion, fill);
}

CUresult cuTensorMapEncodeIm2col(CUtensorMap* map, CUtensorMapDataType type, cuuint32_t rank,
                                 void* address, const cuuint64_t* dims, const cuuint64_t* strides,
                                 const int* lower, const int* upper, cuuint32_t channels,
                                 cuuint32_t pixels, const cuuint32_t* element_strides,
                                 CUtensorMapInterleave interleave, CUtensorMapSwizzle swizzle,
                                 CUtensorMapL2promotion promotion, CUtensorMapFloatOOBfill fill) {
  return driver::encode_im2col(map, type, rank, address, dims, strides, lower, upper, channels,
                               pixels, element_strides, interleave, swizzle, promotion, fill);
}

CUresult cuInit(unsigned flags) { return driver::init(flags); }
CUresult cuDriverGetVersion(int* v) { return driver::driver_version(v); }
CUresult cuDeviceGet(CUdevice* d, int ordinal) { return driver::device_get(d, ordinal); }
CUresult cuDeviceGetCount(int* n) { return driver::device_count(n); }

CUresult cuGetProcAddress_v2(const char* symbol, void** fn, int, cuuint64_t,
                             CUdriverProcAddressQueryResult* status) {
  *fn = driver::lookup(symbol);
  if (*fn == nullptr)
    fail(fmt::format("cuGetProcAddress({}): heddle's driver stand-in does not implement it", symbol));
  if (status != nullptr) *status = CU_GET_PROC_ADDRESS_SUCCESS;
  return CUDA_SUCCESS;
}

}  // extern "C"
