// The device code nvcc embeds in a program: a fatbinary (a header, then one
// entry per PTX or SASS image, each possibly compressed), reached through
// the wrapper that __cudaRegisterFatBinary receives.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace heddle::cuda {

/// One image of a fatbinary.
struct FatbinEntry {
  bool ptx = false;       // PTX text (else SASS, an ELF cubin)
  int arch = 0;           // 90 for compute_90(a) / sm_90(a)
  std::string payload;    // decompressed bytes
};

/// The entries of the fatbinary that `wrapper` (a __fatBinC_Wrapper_t, or a
/// fatbinary itself) points to; UsageError for a malformed one.
std::vector<FatbinEntry> read_fatbin(const void* wrapper);

/// The PTX for the newest architecture up to sm_90 among `entries`;
/// UsageError naming the -gencode flag when there is none (SASS only).
std::string pick_ptx(const std::vector<FatbinEntry>& entries);

}  // namespace heddle::cuda
