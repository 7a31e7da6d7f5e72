#include "checker/engine/source_path.hpp"

#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <vector>

#include "heddle_build_root.h"  // HEDDLE_BUILD_SOURCE_ROOT (checker/meson.build)

namespace heddle {
namespace {

std::mutex root_mutex;
std::string& chosen_root() {
  static std::string root;
  return root;
}

// "dir/" for a directory given with or without its trailing slash.
std::string as_prefix(std::string dir) {
  if (!dir.empty() && dir.back() != '/') dir += '/';
  return dir;
}

// The prefixes an absolute path may lose, most specific first.
std::vector<std::string> roots() {
  std::vector<std::string> out;
  {
    std::lock_guard<std::mutex> lock(root_mutex);
    if (!chosen_root().empty()) return {as_prefix(chosen_root())};
  }
  std::error_code ec;
  if (const char* env = std::getenv("HEDDLE_SOURCE_ROOT"); env != nullptr && *env != '\0') {
    const auto abs = std::filesystem::absolute(env, ec);  // (--source-root of a parent process)
    if (!ec) return {as_prefix(abs.lexically_normal().string())};
  }
  const auto cwd = std::filesystem::current_path(ec);
  if (!ec) out.push_back(as_prefix(cwd.string()));
  out.push_back(as_prefix(HEDDLE_BUILD_SOURCE_ROOT));
  return out;
}

}  // namespace

void set_source_root(std::string dir) {
  std::error_code ec;
  if (!dir.empty() && !dir.starts_with("/")) {
    auto abs = std::filesystem::absolute(dir, ec);
    if (!ec) dir = abs.lexically_normal().string();
  }
  std::lock_guard<std::mutex> lock(root_mutex);
  chosen_root() = std::move(dir);
}

std::string source_path(std::string_view given) {
  // "build/../kernels/x.cu" (nvcc's .file of a source meson names from its
  // build folder) is "kernels/x.cu": the path without its dot segments.
  const std::string normal = std::filesystem::path(given).lexically_normal().generic_string();
  std::string_view file = normal.empty() ? given : std::string_view(normal);
  if (file.starts_with("/")) {
    std::string best;
    for (const std::string& r : roots())
      if (file.starts_with(r) && r.size() > best.size()) best = r;
    return std::string(file.substr(best.size()));
  }
  while (true) {
    if (file.starts_with("./")) file.remove_prefix(2);
    else if (file.starts_with("../")) file.remove_prefix(3);
    else break;
  }
  return std::string(file);
}

}  // namespace heddle
