#include "models/ptx/launch.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

namespace heddle::ptx {
namespace {

constexpr const char* kArgForms =
    "NAME=buffer:BYTES, NAME=tensormap:BUFFER,shape=WxH,box=WxH[,elem=BYTES] (it creates "
    "BUFFER when no buffer argument has that name) or "
    "NAME=u32:VALUE (also i32, u64, i64)";

std::uint64_t number(const std::string& text, const std::string& what) {
  try {
    std::size_t used = 0;
    long long v = std::stoll(text, &used, 0);
    if (used == text.size()) return static_cast<std::uint64_t>(v);
  } catch (const std::exception&) {
  }
  throw UsageError(fmt::format("--arg {}: {} is not a number", what, text));
}

void two(const std::string& text, std::uint32_t out[2], const std::string& what) {
  std::size_t x = text.find('x');
  out[0] = static_cast<std::uint32_t>(number(text.substr(0, x), what));
  out[1] = x == std::string::npos ? 1 : static_cast<std::uint32_t>(number(text.substr(x + 1), what));
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
  encode_tensormap(reinterpret_cast<std::uint8_t*>(map.region().bytes()),
                   gpu::current_grid().address_of(tensor.region()), a.shape, a.box, a.elem);
}

}  // namespace

void encode_tensormap(std::uint8_t* out, std::uint64_t address, const std::uint32_t shape[2],
                      const std::uint32_t box[2], std::uint32_t elem) {
  gpu::TmaDesc d;
  d.global_address = address;
  d.box_bytes = box[0] * box[1] * elem;
  d.dims[0] = shape[0] / box[0];
  d.dims[1] = shape[1] / box[1];
  std::memcpy(out, &d, sizeof d);
  std::memcpy(out + kBoxShapeAt, box, 2 * sizeof box[0]);
}

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
      else if (key == "elem") a.elem = static_cast<std::uint32_t>(number(value, a.name));
      else throw UsageError(fmt::format("--arg {}: unknown tensormap field {}; expected {}", text, key, kArgForms));
    }
    if (a.tensor.empty()) throw UsageError(fmt::format("--arg {}: name the buffer the tensormap describes", text));
  } else if (kind == "u32" || kind == "i32" || kind == "u64" || kind == "i64") {
    a.value = number(rest, a.name);
    if (kind[1] == '3') a.value &= 0xffffffffull;
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
  if (!launch.raw.empty()) adopt_raw();
  else if (launch.args.size() != p.params.size())
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
    params_.push_back(std::move(bytes));
  }
  shared_.resize(p.symbols.size());
  for (std::size_t i = 0; i < p.symbols.size(); ++i)
    if (p.symbols[i].space == Space::shared)
      shared_[i] = gpu::shared<std::uint8_t>(p.symbols[i].display, p.symbols[i].bytes);
}

void LaunchState::adopt_raw() {
  const Program& p = program();
  if (launch_.raw.size() != p.params.size())
    throw UsageError(fmt::format("kernel {} takes {} parameters, the launch passed {}", p.kernel,
                                 p.params.size(), launch_.raw.size()));
  for (std::size_t i = 0; i < launch_.raw.size(); ++i) {
    std::vector<std::uint8_t> bytes = launch_.raw[i];
    std::uint64_t address = 0;
    if (bytes.size() > 8) {  // its own global copy: a tensormap where it has a tensormap's size
      const std::string& name = p.symbols[static_cast<std::size_t>(p.params[i])].display;
      gpu::View<std::uint8_t> copy = bytes.size() == 128 ? gpu::global_tensormap(name, gpu::TmaDesc{})
                                                         : gpu::global<std::uint8_t>(name, bytes.size());
      std::memcpy(copy.region().bytes(), bytes.data(), bytes.size());
      address = gpu::current_grid().address_of(copy.region());
    }
    bytes.resize(std::max<std::size_t>(bytes.size(), 8));
    params_.push_back(std::move(bytes));
    raw_addresses_.push_back(address);
  }
}

std::uint64_t LaunchState::param_address(int i) const {
  if (!launch_.raw.empty()) {
    std::uint64_t address = raw_addresses_.at(static_cast<std::size_t>(i));
    if (address != 0) return address;
    throw ModelError(fmt::format("the kernel takes the address of parameter {}: only parameters "
                                 "wider than 8 bytes have a modelled address", i));
  }
  const ArgSpec& a = launch_.args.at(static_cast<std::size_t>(i));
  if (a.kind != ArgSpec::Kind::tensormap)
    throw ModelError(fmt::format("the kernel takes the address of parameter {} ({}): only "
                                 "tensormap parameters have a modelled address",
                                 i, a.name));
  std::uint64_t address = 0;
  std::memcpy(&address, params_.at(static_cast<std::size_t>(i)).data(), sizeof address);
  return address;
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
      if (s.space == Space::shared && addr >= s.offset && addr + bytes <= s.offset + s.bytes)
        return {&shared_[i][cta].region(), addr - s.offset};
    }
  } else if (space == Space::global || space == Space::generic) {
    auto [r, off] = gpu::current_grid().resolve(addr, bytes);
    if (r != nullptr) return {r, off};
  } else {
    throw ModelError(fmt::format("`{}`: the {} state space is not modelled", in.opcode,
                                 space == Space::local ? "local" : "param/const"),
                     in.loc);
  }
  throw ModelError(fmt::format("`{}` accesses {} bytes at unmapped {} address {:#x} (out of "
                               "bounds of every {})",
                               in.opcode, bytes, space == Space::shared ? "shared" : "global", addr,
                               launch_.raw.empty() ? "buffer: enlarge the --arg buffer?"
                                                   : "allocation and variable"),
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
  for (const auto& [name, view] : buffers_) {
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
