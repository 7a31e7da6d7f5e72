#include "models/ptx/expect.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>
#include <utility>

namespace heddle::ptx {

std::vector<std::uint8_t> read_input_file(const std::string& path, const std::string& what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UsageError(fmt::format("{}: cannot read {}", what, path));
  std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (bytes.empty() || bytes.size() > (64u << 20))
    throw UsageError(fmt::format("{}: {} has {} bytes; a buffer takes 1 byte to 64 MiB", what, path,
                                 bytes.size()));
  return bytes;
}

Expectation parse_expect(const std::string& text, const std::vector<ArgSpec>& args) {
  const std::size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size())
    throw UsageError(fmt::format("--expect {}: expected NAME=FILE[,tol=X] (NAME a buffer --arg)", text));
  Expectation e;
  e.name = text.substr(0, eq);
  e.file = text.substr(eq + 1);
  if (const std::size_t c = e.file.rfind(",tol="); c != std::string::npos) {
    const std::string tol = e.file.substr(c + 5);
    std::size_t used = 0;
    try {
      e.tol = std::stod(tol, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != tol.size() || !(e.tol >= 0) || !std::isfinite(e.tol))
      throw UsageError(fmt::format("--expect {}: tol={} is not a tolerance (a number >= 0)", text, tol));
    e.tolerant = true;
    e.file.resize(c);
  }
  std::size_t i = 0;
  while (i < args.size() && !(args[i].name == e.name && args[i].kind == ArgSpec::Kind::buffer)) ++i;
  if (i == args.size())
    throw UsageError(fmt::format("--expect {}: {} is not a buffer argument (--arg {}=buffer:...)",
                                 text, e.name, e.name));
  e.arg = i;
  e.bytes = read_input_file(e.file, "--expect " + e.name);
  if (e.bytes.size() != args[i].bytes)
    throw UsageError(fmt::format("--expect {}: {} has {} bytes, buffer {} has {}", text, e.file,
                                 e.bytes.size(), e.name, args[i].bytes));
  if (e.tolerant && e.bytes.size() % 4 != 0)
    throw UsageError(fmt::format("--expect {}: a tolerance compares float32 values, and {} bytes "
                                 "are not a whole number of them", text, e.bytes.size()));
  return e;
}

namespace {
float f32_at(const std::uint8_t* p) {
  float f;
  std::memcpy(&f, p, 4);
  return f;
}

// The first byte (exact) or float32 element (tolerant) where `got` differs, in words; "" when none.
std::string first_difference(const std::uint8_t* got, const Expectation& e) {
  const std::size_t n = e.bytes.size();
  if (!e.tolerant) {
    for (std::size_t b = 0; b < n; ++b)
      if (got[b] != e.bytes[b])
        return fmt::format("byte {} is {:#04x}, expected {:#04x}", b, got[b], e.bytes[b]);
    return "";
  }
  for (std::size_t b = 0; b < n; b += 4) {
    const float g = f32_at(got + b), w = f32_at(e.bytes.data() + b);
    if (!(std::fabs(static_cast<double>(g) - w) <= e.tol))  // NaN differs
      return fmt::format("float32 element {} (bytes [{}:{}]) is {}, expected {} within {}", b / 4, b,
                         b + 4, g, w, e.tol);
  }
  return "";
}
}  // namespace

void check_expectation(const LaunchState& state, const Expectation& e) {
  std::uint64_t address = 0;
  std::memcpy(&address, state.param(static_cast<int>(e.arg)).data(), 8);
  auto [region, offset] = gpu::current_grid().resolve(address, e.bytes.size());
  if (region == nullptr) throw ModelError(fmt::format("--expect {}: the buffer is not mapped", e.name));
  const auto* got = reinterpret_cast<const std::uint8_t*>(std::as_const(*region).bytes() + offset);
  const std::string diff = first_difference(got, e);
  // Reported at the kernel's last instruction (its exit), not at heddle's line.
  const auto& code = state.program().code;
  check(diff.empty(), fmt::format("buffer {} does not hold {}: {}", e.name, e.file, diff),
        code.empty() ? std::source_location::current() : code.back().loc);
}

}  // namespace heddle::ptx
