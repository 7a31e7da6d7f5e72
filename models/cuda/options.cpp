#include "models/cuda/options.hpp"

#include <fmt/format.h>

#include <sstream>

#include "checker/engine/errors.hpp"

namespace heddle::cuda {

std::string encode_options(const std::map<std::string, std::string>& options) {
  std::string out;
  for (const auto& [k, v] : options) {
    if (v.find('\n') != std::string::npos)
      throw UsageError(fmt::format("--{}: the value may not contain a newline", k));
    out += k + "=" + v + "\n";
  }
  return out;
}

Options decode_options(const std::string& text) {
  Options o;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    auto eq = line.find('=');
    if (eq != std::string::npos) o.given[line.substr(0, eq)] = line.substr(eq + 1);
  }
  if (auto it = o.given.find("check"); it != o.given.end()) o.check = it->second;
  if (auto it = o.given.find("status"); it != o.given.end()) o.status = it->second;
  return o;
}

}  // namespace heddle::cuda
