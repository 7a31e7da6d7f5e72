// Module-scope .global and .const variables (PTX ISA 5.1.2-5.1.3, 5.4):
// their initial contents from the initializer as written.
#include <fmt/format.h>

#include <cstring>

#include "checker/engine/errors.hpp"
#include "models/ptx/opcodes.hpp"

namespace heddle::ptx {
namespace {

// One value of an initializer: an integer (decimal, hex, octal, negative,
// U suffix) or a 0f/0d float bit pattern; nullopt for anything else.
std::optional<std::uint64_t> value_of(std::string t, std::size_t elem) {
  if (t.size() > 2 && t[0] == '0' && (t[1] == 'f' || t[1] == 'F' || t[1] == 'd' || t[1] == 'D')) {
    try {
      std::size_t used = 0;
      std::uint64_t bits = std::stoull(t.substr(2), &used, 16);
      if (used == t.size() - 2 && used == (t[1] == 'f' || t[1] == 'F' ? 8u : 16u)) {
        if (elem == 8 && used == 8) {  // an f32 literal for an f64 variable: PTX converts it
          float f;
          auto b32 = static_cast<std::uint32_t>(bits);
          std::memcpy(&f, &b32, 4);
          double d = f;
          std::memcpy(&bits, &d, 8);
        }
        return bits;
      }
    } catch (const std::exception&) {
    }
    return std::nullopt;
  }
  bool neg = !t.empty() && t[0] == '-';
  if (neg) t.erase(0, 1);
  if (!t.empty() && t.back() == 'U') t.pop_back();
  if (t.empty() || !std::isdigit(static_cast<unsigned char>(t[0]))) return std::nullopt;
  try {
    std::size_t used = 0;
    std::uint64_t v = std::stoull(t, &used, 0);
    if (used != t.size()) return std::nullopt;
    return neg ? 0 - v : v;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

}  // namespace

Symbol global_variable(const Statement& s, std::uint32_t elem, const std::string& path) {
  if (s.is_extern || s.bytes == 0)
    throw UsageError(fmt::format("{}:{}:{}: {} variable {} is declared .extern (defined in another "
                                 "module): heddle checks one PTX file; link it into this one",
                                 path, s.pos.line, s.pos.column, s.space, s.name));
  std::uint64_t bytes = static_cast<std::uint64_t>(s.bytes) * elem;
  Symbol sym{s.name, display_name(s.name), s.space == ".global" ? Space::global : Space::constant,
             0, static_cast<std::uint32_t>(bytes), {}, s.pos.line, {}};
  sym.init = initial_bytes(s, elem, static_cast<std::size_t>(s.bytes), path);
  return sym;
}

std::vector<std::uint8_t> initial_bytes(const Statement& s, std::size_t elem, std::size_t count,
                                        const std::string& path) {
  std::vector<std::uint8_t> bytes(elem * count, 0);
  std::size_t i = 0;
  std::string token;
  auto flush = [&] {
    if (token.empty()) return;
    auto v = value_of(token, elem);
    if (!v)
      throw UsageError(fmt::format("{}:{}:{}: variable {}: the initializer value `{}` is not a "
                                   "number (addresses of variables are not interpreted)",
                                   path, s.pos.line, s.pos.column, s.name, token));
    if (i >= count)
      throw UsageError(fmt::format("{}:{}:{}: variable {} has {} elements but its initializer more",
                                   path, s.pos.line, s.pos.column, s.name, count));
    std::memcpy(bytes.data() + i * elem, &*v, elem);  // little-endian, cut to the element
    ++i;
    token.clear();
  };
  for (char c : s.init) {
    if (c == ',' || c == '{' || c == '}' || std::isspace(static_cast<unsigned char>(c))) flush();
    else token += c;
  }
  flush();
  return bytes;
}

}  // namespace heddle::ptx
