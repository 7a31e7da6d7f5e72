// Where the build put heddle's libcudart.so.13 and libcuda.so.1 (meson
// writes the path into cuda_lib_dir.h); HEDDLE_CUDA_LIB overrides it.
#pragma once
#include "models/cuda/cuda_lib_dir.h"

namespace heddle::cuda {

inline constexpr const char* kCudaLibDir = HEDDLE_CUDA_LIB_DIR;

}  // namespace heddle::cuda
