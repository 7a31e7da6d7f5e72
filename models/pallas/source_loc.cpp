#include "models/pallas/source_loc.hpp"

#include <deque>
#include <map>
#include <mutex>
#include <tuple>

#include "checker/engine/foreign_location.hpp"

namespace heddle::pallas {
namespace {

// Records for Python lines, interned for the process (source_location
// points at them: checker/engine/foreign_location.hpp).
struct Interned {
  std::mutex mu;
  std::deque<std::string> strings;
  std::deque<LocRecord> records;
  std::map<std::tuple<std::string, std::uint32_t, std::string>, const LocRecord*> index;
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
    const LocRecord* r = &in.records.emplace_back(LocRecord{f, fn, line, 0});
    it = in.index.emplace(key, r).first;
  }
  return make_location(it->second);
}

}  // namespace heddle::pallas
