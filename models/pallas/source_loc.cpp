#include "models/pallas/source_loc.hpp"

#include <cstring>
#include <deque>
#include <map>
#include <mutex>
#include <tuple>

namespace heddle::pallas {
namespace {

// std::source_location has no public constructor from values. libstdc++
// (GCC 11 and later) keeps one pointer to a {file, function, line, column}
// record; we build such records for Python lines and store a pointer to one.
// The static_asserts keep this honest if the library changes.
struct LocationRecord {
  const char* file;
  const char* function;
  unsigned line;
  unsigned column;
};
static_assert(sizeof(std::source_location) == sizeof(const void*),
              "std::source_location is not one pointer: python_location needs porting");

struct Interned {
  std::mutex mu;
  std::deque<std::string> strings;
  std::deque<LocationRecord> records;
  std::map<std::tuple<std::string, std::uint32_t, std::string>, const LocationRecord*> index;
};

Interned& interned() {
  static Interned i;
  return i;
}
}  // namespace

std::source_location python_location(const std::string& file, std::uint32_t line,
                                     const std::string& function) {
  auto& in = interned();
  std::lock_guard lock(in.mu);
  auto key = std::make_tuple(file, line, function);
  auto it = in.index.find(key);
  if (it == in.index.end()) {
    const char* f = in.strings.emplace_back(file).c_str();
    const char* fn = in.strings.emplace_back(function).c_str();
    const LocationRecord* r = &in.records.emplace_back(LocationRecord{f, fn, line, 0});
    it = in.index.emplace(key, r).first;
  }
  std::source_location loc;
  const LocationRecord* record = it->second;
  std::memcpy(static_cast<void*>(&loc), &record, sizeof record);
  return loc;
}

}  // namespace heddle::pallas
