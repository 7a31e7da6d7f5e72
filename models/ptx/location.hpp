// Source locations for PTX instructions. heddle's reports carry
// std::source_location; a PTX instruction has no C++ location, so the
// front end builds one whose file reads "kernel.cu:LINE via kernel.ptx" and
// whose line is the PTX line: reports print "kernel.cu:32 via kernel.ptx:151".
#pragma once
#include <bit>
#include <source_location>

namespace heddle::ptx {

/// The layout of libstdc++'s std::source_location::__impl (GCC 11 and later).
struct LocRecord {
  const char* file = "";
  const char* function = "";
  unsigned line = 0;
  unsigned column = 0;
};

#if !defined(__GLIBCXX__)
#error "models/ptx/location.hpp builds std::source_location the libstdc++ way"
#endif
static_assert(sizeof(std::source_location) == sizeof(const LocRecord*),
              "std::source_location is one pointer to its record in libstdc++");

/// A source_location that reads `r` (which must outlive every copy of it).
inline std::source_location make_location(const LocRecord* r) noexcept {
  return std::bit_cast<std::source_location>(r);
}

}  // namespace heddle::ptx
