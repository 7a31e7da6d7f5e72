#include "checker/engine/range_words.hpp"

#include <fmt/format.h>

namespace heddle {

std::string range_words(const std::string& region, std::size_t elem_size, std::uint64_t first,
                        std::uint64_t count) {
  const bool bytes = elem_size == 1;
  if (count == 1) return bytes ? fmt::format("{} byte {}", region, first)
                               : fmt::format("{}[{}]", region, first);
  return bytes ? fmt::format("{} bytes [{}:{}]", region, first, first + count)
               : fmt::format("{}[{}:{}]", region, first, first + count);
}

std::size_t unit_in_title(const std::string& title, const std::string& region) {
  const std::string head = "data race on " + region + " byte";
  return title.rfind(head, 0) == 0 ? 1 : 0;
}

}  // namespace heddle
