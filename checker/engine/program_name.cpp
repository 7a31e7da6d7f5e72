#include "checker/engine/program_name.hpp"

namespace heddle {
namespace {
std::string& program_name_storage() {
  static std::string n = "heddle";
  return n;
}
}  // namespace

void set_program_name(const std::string& argv0) {
  const auto slash = argv0.find_last_of('/');
  std::string base = slash == std::string::npos ? argv0 : argv0.substr(slash + 1);
  program_name_storage() = base.empty() ? "heddle" : base;
}

const std::string& program_name() { return program_name_storage(); }

}  // namespace heddle
