#include "models/ptx/launch.hpp"

#include <fmt/format.h>

#include <cstring>

namespace heddle::ptx {
namespace {

constexpr const char* kArgForms =
    "NAME=buffer:BYTES, NAME=tensormap:BUFFER,shape=WxH,box=WxH[,elem=BYTES] (it creates "
    "BUFFER when no buffer argument has that name) or "
    "NAME=u32:VALUE (also i32, u64, i64) or NAME=bytes:HEX (a struct parameter's bytes)";

std::uint64_t number(const std::string& text, const std::string& what) {
  try {
    std::size_t used = 0;
    long long v = std::stoll(text, &used, 0);
    if (used == text.size()) return static_cast<std::uint64_t>(v);
  } catch (const std::exception&) {
  }
  throw UsageError(fmt::format("--arg {}: {} is not a number", what, text));
}

// A scalar of kind u32/i32/u64/i64 written in `text`, which must fit it.
std::uint64_t scalar(const std::string& kind, const std::string& text, const std::string& what) {
  const bool is_signed = kind[0] == 'i', wide = kind[1] == '6';
  try {
    std::size_t used = 0;
    if (!is_signed && text.find('-') == std::string::npos) {
      unsigned long long v = std::stoull(text, &used, 0);
      if (used == text.size() && (wide || v <= 0xffffffffull)) return v;
    } else if (is_signed) {
      long long v = std::stoll(text, &used, 0);
      if (used == text.size() && (wide || (v >= INT32_MIN && v <= INT32_MAX)))
        return static_cast<std::uint64_t>(v) & (wide ? ~0ull : 0xffffffffull);
    }
  } catch (const std::exception&) {
  }
  throw UsageError(fmt::format("--arg {}: {} is not a {} value (it would not fit, or is not a number)",
                               what, text, kind));
}

// "WxH": each 1 to 2^31 (the box divides the shape; a 0 would divide by zero).
void two(const std::string& text, std::uint32_t out[2], const std::string& what) {
  std::size_t x = text.find('x');
  std::uint64_t v[2] = {scalar("u32", text.substr(0, x), what),
                        x == std::string::npos ? 1 : scalar("u32", text.substr(x + 1), what)};
  for (int i = 0; i < 2; ++i) {
    if (v[i] == 0 || v[i] > (1u << 31))
      throw UsageError(fmt::format("--arg {}: {} has a dimension of {}; each must be 1 to 2^31", what, text, v[i]));
    out[i] = static_cast<std::uint32_t>(v[i]);
  }
}

// The model's tensormap encoding (models/gpu/bulk.hpp TmaDesc) plus, at
// byte 64, the box shape in elements that PTX coordinates are divided by.
constexpr std::size_t kBoxShapeAt = 64;

void write_tensormap(gpu::View<std::uint8_t>& map, const ArgSpec& a,
                     const gpu::View<std::uint8_t>& tensor) {
  if (a.shape[0] % a.box[0] != 0 || a.shape[1] % a.box[1] != 0)
    throw UsageError(fmt::format("--arg {}: the box {}x{} does not tile the shape {}x{}", a.name,
                                 a.box[0], a.box[1], a.shape[0], a.shape[1]));
  if (std::uint64_t{a.shape[0]} * a.shape[1] * a.elem > tensor.size())
    throw UsageError(fmt::format("--arg {}: a {}x{} tensor of {}-byte elements does not fit in "
                                 "buffer {} ({} bytes)",
                                 a.name, a.shape[0], a.shape[1], a.elem, a.tensor, tensor.size()));
  gpu::TmaDesc d;
  d.global_address = gpu::current_grid().address_of(tensor.region());
  d.box_bytes = a.box[0] * a.box[1] * a.elem;
  d.dims[0] = a.shape[0] / a.box[0];
  d.dims[1] = a.shape[1] / a.box[1];
  std::memcpy(map.region().bytes(), &d, sizeof d);
  std::memcpy(map.region().bytes() + kBoxShapeAt, a.box, sizeof a.box);
}

}  // namespace

ArgSpec parse_arg(const std::string& text) {
  ArgSpec a;
  std::size_t eq = text.find('='), colon = text.find(':');
  if (eq == std::string::npos || eq == 0 || colon == std::string::npos || colon < eq)
    throw UsageError(fmt::format("--arg {}: expected {}", text, kArgForms));
  a.name = text.substr(0, eq);
  std::string kind = text.substr(eq + 1, colon - eq - 1), rest = text.substr(colon + 1);
  if (kind == "buffer") {
    a.kind = ArgSpec::Kind::buffer;
    a.bytes = number(rest, a.name);
    if (a.bytes == 0 || a.bytes > (64u << 20))
      throw UsageError(fmt::format("--arg {}: a buffer takes 1 byte to 64 MiB", text));
  } else if (kind == "bytes") {
    a.kind = ArgSpec::Kind::bytes;
    if (rest.empty() || rest.size() % 2 != 0 || rest.size() > 8192 ||
        rest.find_first_not_of("0123456789abcdefABCDEF") != std::string::npos)
      throw UsageError(fmt::format("--arg {}: bytes:HEX takes 1 to 4096 bytes as hex digit pairs "
                                   "(first byte first)", text));
    for (std::size_t i = 0; i < rest.size(); i += 2)
      a.data.push_back(static_cast<std::uint8_t>(std::stoul(rest.substr(i, 2), nullptr, 16)));
  } else if (kind == "tensormap") {
    a.kind = ArgSpec::Kind::tensormap;
    std::size_t start = 0;
    for (std::size_t i = 0; start <= rest.size(); ++i) {
      std::size_t comma = rest.find(',', start);
      std::string item = rest.substr(start, comma - start);
      start = comma == std::string::npos ? rest.size() + 1 : comma + 1;
      if (i == 0) { a.tensor = item; continue; }
      std::size_t e = item.find('=');
      std::string key = item.substr(0, e), value = e == std::string::npos ? "" : item.substr(e + 1);
      if (key == "shape") two(value, a.shape, a.name);
      else if (key == "box") two(value, a.box, a.name);
      else if (key == "elem") a.elem = static_cast<std::uint32_t>(scalar("u32", value, a.name));
      else throw UsageError(fmt::format("--arg {}: unknown tensormap field {}; expected {}", text, key, kArgForms));
    }
    if (a.tensor.empty()) throw UsageError(fmt::format("--arg {}: name the buffer the tensormap describes", text));
    if (a.elem != 1 && a.elem != 2 && a.elem != 4 && a.elem != 8 && a.elem != 16)
      throw UsageError(fmt::format("--arg {}: elem={} is not an element size (1, 2, 4, 8 or 16 bytes)", text, a.elem));
    if (std::uint64_t{a.shape[0]} * a.shape[1] * a.elem > (64u << 20))
      throw UsageError(fmt::format("--arg {}: the tensor is larger than 64 MiB", text));
  } else if (kind == "u32" || kind == "i32" || kind == "u64" || kind == "i64") {
    a.value = scalar(kind, rest, a.name);
    a.scalar_bytes = kind[1] == '3' ? 4 : 8;
  } else {
    throw UsageError(fmt::format("--arg {}: unknown kind {}; expected {}", text, kind, kArgForms));
  }
  return a;
}

std::array<int, 3> parse_dims(const std::string& text, const char* what) {
  std::array<int, 3> d{1, 1, 1};
  std::size_t start = 0;
  for (int i = 0; i < 3 && start <= text.size(); ++i) {
    std::size_t comma = text.find(',', start);
    std::uint64_t v = number(text.substr(start, comma - start), what);
    if (v == 0 || v > 1024) throw UsageError(fmt::format("{} {}: each dimension is 1..1024", what, text));
    d[i] = static_cast<int>(v);
    if (comma == std::string::npos) return d;
    start = comma + 1;
  }
  throw UsageError(fmt::format("{} {}: expected X[,Y[,Z]]", what, text));
}

LaunchState::LaunchState(const Launch& launch) : launch_(launch) {
  const Program& p = program();
  if (launch.args.size() != p.params.size())
    throw UsageError(fmt::format("kernel {} takes {} parameters, {} --arg given", p.kernel,
                                 p.params.size(), launch.args.size()));
  for (const ArgSpec& a : launch.args)
    if (a.kind == ArgSpec::Kind::buffer) buffers_.emplace(a.name, gpu::global<std::uint8_t>(a.name, a.bytes));
  for (const ArgSpec& a : launch.args)  // a tensormap over a buffer no --arg names creates it
    if (a.kind == ArgSpec::Kind::tensormap && buffers_.count(a.tensor) == 0)
      buffers_.emplace(a.tensor, gpu::global<std::uint8_t>(a.tensor, std::size_t{a.shape[0]} * a.shape[1] * a.elem));
  for (const ArgSpec& a : launch.args) {
    std::uint64_t value = a.value;
    if (a.kind == ArgSpec::Kind::tensormap) {
      auto t = buffers_.find(a.tensor);
      gpu::View<std::uint8_t> map = gpu::global_tensormap(a.name, gpu::TmaDesc{});
      write_tensormap(map, a, t->second);
      value = gpu::current_grid().address_of(map.region());
    }
    if (a.kind == ArgSpec::Kind::buffer) value = gpu::current_grid().address_of(buffers_.at(a.name).region());
    std::vector<std::uint8_t> bytes(8);
    std::memcpy(bytes.data(), &value, 8);
    param_at_.push_back(0);
    if (a.kind == ArgSpec::Kind::bytes) {  // by value, in (read-only) global memory: its address is taken
      const Symbol& s = p.symbols[static_cast<std::size_t>(p.params[params_.size()])];
      bytes = a.data;
      bytes.resize(std::max<std::size_t>(s.bytes, bytes.size()), 0);
      gpu::View<std::uint8_t> v = gpu::global<std::uint8_t>(a.name, bytes.size());
      std::memcpy(v.region().bytes(), bytes.data(), bytes.size());
      param_at_.back() = gpu::current_grid().address_of(v.region());
    }
    params_.push_back(std::move(bytes));
  }
  shared_.resize(p.symbols.size());
  global_at_.resize(p.symbols.size());
  for (std::size_t i = 0; i < p.symbols.size(); ++i) {
    const Symbol& s = p.symbols[i];
    if (s.space != Space::global && s.space != Space::constant) continue;
    gpu::View<std::uint8_t> v = gpu::global<std::uint8_t>(s.display, s.bytes);
    std::memcpy(v.region().bytes(), s.init.data(), s.init.size());  // setup: initial contents
    global_at_[i] = gpu::current_grid().address_of(v.region());
    if (s.space == Space::global) variables_.push_back(v);
  }
  for (std::size_t i = 0; i < p.symbols.size(); ++i)
    if (p.symbols[i].space == Space::shared && p.symbols[i].bytes > 0)
      shared_[i] = gpu::shared<std::uint8_t>(p.symbols[i].display, p.symbols[i].bytes);
}

std::uint64_t LaunchState::param_address(int i) const {
  const ArgSpec& a = launch_.args.at(static_cast<std::size_t>(i));
  if (a.kind == ArgSpec::Kind::bytes) return param_at_.at(static_cast<std::size_t>(i));
  if (a.kind != ArgSpec::Kind::tensormap)
    throw ModelError(fmt::format("the kernel takes the address of parameter {} ({}): only "
                                 "tensormap and bytes: parameters have a modelled address",
                                 i, a.name));
  std::uint64_t address = 0;
  std::memcpy(&address, params_.at(static_cast<std::size_t>(i)).data(), sizeof address);
  return address;
}

std::uint64_t LaunchState::symbol_address(int symbol) const {
  const Symbol& s = program().symbols.at(static_cast<std::size_t>(symbol));
  if (s.space == Space::param) return param_address(static_cast<int>(s.offset));
  if (s.space == Space::global || s.space == Space::constant) return global_at_.at(static_cast<std::size_t>(symbol));
  return s.offset;
}

std::pair<Region*, std::size_t> LaunchState::resolve(Space space, std::uint64_t addr,
                                                     std::size_t bytes, int cta,
                                                     const Instr& in) const {
  const Program& p = program();
  if (space == Space::generic && addr >= kSharedWindow && addr < kSharedWindow + p.shared_bytes) {
    space = Space::shared;
    addr -= kSharedWindow;
  }
  if (space == Space::shared) {
    for (std::size_t i = 0; i < p.symbols.size(); ++i) {
      const Symbol& s = p.symbols[i];
      if (s.space == Space::shared && addr >= s.offset && bytes <= s.bytes &&
          addr - s.offset <= s.bytes - bytes)  // no overflow near 2^64
        return {&shared_[i][cta].region(), addr - s.offset};
    }
  } else if (space == Space::global || space == Space::generic || space == Space::constant) {
    auto [r, off] = gpu::current_grid().resolve(addr, bytes);
    if (r != nullptr) return {r, off};
  } else {
    throw ModelError(fmt::format("`{}`: the {} state space is not modelled", in.opcode,
                                 space == Space::local ? "local" : "param"),
                     in.loc);
  }
  throw ModelError(fmt::format("`{}` accesses {} bytes at unmapped {} address {:#x} (out of "
                               "bounds of every buffer: enlarge the --arg buffer?)",
                               in.opcode, bytes, space == Space::shared ? "shared" : "global", addr),
                   in.loc);
}

std::string LaunchState::shared_name(int cta, std::uint32_t addr) const {
  for (const Symbol& s : program().symbols)
    if (s.space == Space::shared && addr >= s.offset && addr < s.offset + s.bytes) {
      std::string n = s.bytes > 8 ? fmt::format("{}[{}]", s.display, (addr - s.offset) / 8) : s.display;
      return launch_.ctas() > 1 ? fmt::format("{}@cta{}", n, cta) : n;
    }
  return fmt::format("smem+{:#x}", addr);
}

void LaunchState::observe_buffers() const {
  std::vector<std::pair<std::string, gpu::View<std::uint8_t>>> all(buffers_.begin(), buffers_.end());
  for (const auto& v : variables_) all.emplace_back(v.region().name(), v);
  for (const auto& [name, view] : all) {
    if (view.size() <= 64) {  // small buffers in full (hex bytes), larger ones hashed
      std::string hex;
      for (std::size_t i = 0; i < view.size(); ++i) hex += fmt::format("{:02x}", view.raw(i));
      observe(name, hex);
      continue;
    }
    std::uint64_t h = 1469598103934665603ull;  // FNV-1a of the contents
    for (std::size_t i = 0; i < view.size(); ++i) h = (h ^ view.raw(i)) * 1099511628211ull;
    observe(name, fmt::format("{:016x}", h));
  }
}

}  // namespace heddle::ptx
