// Every other function of NVIDIA's libcudart.so.13 (nm -D, CUDA 13.0) and
// libcuda.so.1 (the toolkit's stub): a program that calls one is told
// which, and ends with exit status 2, instead of failing to load or
// crashing. Declared without the CUDA headers (their signatures differ);
// none of them reads its arguments.
#include <fmt/format.h>

#include "models/cuda/session.hpp"

namespace {

[[noreturn]] void unimplemented(const char* name) {
  heddle::cuda::fail(fmt::format("the program called {}, which heddle's CUDA runtime does not "
                                 "implement (models/cuda/README.md lists what it does)",
                                 name));
}

}  // namespace

#define HEDDLE_UNIMPLEMENTED(name) \
  extern "C" [[noreturn]] void name() { unimplemented(#name); }
#ifdef HEDDLE_DRIVER
#include "models/cuda/lib/driver_unimplemented.inc"
#else
#include "models/cuda/lib/cudart_unimplemented.inc"
#endif
