#include "checker/engine/user_site.hpp"

#include <fmt/format.h>

#include <string_view>

#include "checker/engine/bug.hpp"

namespace heddle {
namespace {
// The prefix this file was compiled under, before "checker/engine/": the
// same root names heddle's headers in the user's build (in tree, or as a
// subproject).
std::string_view heddle_root() {
  static const std::string root = [] {
    std::string self = std::source_location::current().file_name();
    auto at = self.rfind("checker/engine/user_site.cpp");
    return at == std::string::npos ? std::string("\x01") : self.substr(0, at);
  }();
  return root;
}
}  // namespace

bool in_heddle(const std::source_location& loc) {
  std::string_view file = loc.file_name();
  const std::string_view root = heddle_root();
  for (std::string_view layer : {"checker/", "models/"}) {
    if (file.starts_with(root) && file.substr(root.size()).starts_with(layer)) return true;
    // Installed headers: PREFIX/include/heddle/checker/...
    if (file.find(std::string("/include/heddle/").append(layer)) != std::string_view::npos)
      return true;
  }
  return false;
}

std::string error_site(const std::source_location& thrown, const std::string& fallback_words) {
  return in_heddle(thrown) ? fallback_words : fmt::format("at {}", where(thrown));
}

}  // namespace heddle
