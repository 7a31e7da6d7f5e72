// A std::source_location for a line that is not C++: a PTX instruction, a
// Python line of a Pallas kernel. heddle's reports carry
// std::source_location, which has no public constructor from values;
// libstdc++ (GCC 11 and later) keeps one pointer to a {file, function,
// line, column} record, so a front end builds such records and points a
// source_location at one. The checks below keep this honest if the library
// changes. One helper for every front end (models/ptx, models/pallas).
#pragma once
#include <bit>
#include <source_location>

namespace heddle {

/// The layout of libstdc++'s std::source_location::__impl.
struct LocRecord {
  const char* file = "";
  const char* function = "";
  unsigned line = 0;
  unsigned column = 0;
};

#if !defined(__GLIBCXX__)
#error "checker/engine/foreign_location.hpp builds std::source_location the libstdc++ way"
#endif
static_assert(sizeof(std::source_location) == sizeof(const LocRecord*),
              "std::source_location is one pointer to its record in libstdc++");

/// A source_location that reads `r` (which must outlive every copy of it).
inline std::source_location make_location(const LocRecord* r) noexcept {
  return std::bit_cast<std::source_location>(r);
}

}  // namespace heddle
