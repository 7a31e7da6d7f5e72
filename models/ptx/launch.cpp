#include "models/ptx/launch.hpp"
#include "models/ptx/tensormap.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstring>

#include "models/ptx/expect.hpp"

namespace heddle::ptx {
namespace {

constexpr const char* kArgForms =
    "NAME=buffer:BYTES (zeros) or NAME=buffer:FILE (the file's bytes), NAME=tensormap:BUFFER,shape=WxH[xD..],box=WxH[xD..][,elem=BYTES] (1 to 5 dimensions) (it creates "
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

// "WxHxD": 1 to 5 dimensions, each 1 to 2^31 (the box divides the shape; a 0
// would divide by zero); returns how many.
std::uint32_t dims(const std::string& text, std::uint32_t out[5], const std::string& what) {
  std::uint32_t n = 0;
  for (std::size_t start = 0;; ++n) {
    std::size_t x = text.find('x', start);
    if (n == 5) throw UsageError(fmt::format("--arg {}: {} has more than 5 dimensions", what, text));
    std::uint64_t v = scalar("u32", text.substr(start, x - start), what);
    if (v == 0 || v > (1u << 31))
      throw UsageError(fmt::format("--arg {}: {} has a dimension of {}; each must be 1 to 2^31", what, text, v));
    out[n] = static_cast<std::uint32_t>(v);
    if (x == std::string::npos) return n + 1;
    start = x + 1;
  }
}

void write_tensormap(gpu::View<std::uint8_t>& map, const ArgSpec& a,
                     const gpu::View<std::uint8_t>& tensor) {
  TensorShape s;
  s.rank = a.rank;
  s.elem = a.elem;
  std::uint64_t bytes = a.elem;
  for (std::uint32_t k = 0; k < a.rank; ++k) {
    s.box[k] = a.box[k];
    s.dims[k] = a.shape[k];
    bytes *= a.shape[k];
  }
  dense_strides(s);
  if (std::string why = shape_problem(s); !why.empty())
    throw UsageError(fmt::format("--arg {}: {}", a.name, why));
  if (bytes > tensor.size())
    throw UsageError(fmt::format("--arg {}: the tensor of {} bytes does not fit in buffer {} ({} bytes)",
                                 a.name, bytes, a.tensor, tensor.size()));
  s.address = gpu::current_grid().address_of(tensor.region());
  encode_shape(map.region().bytes(), s);
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
    if (!rest.empty() && !std::isdigit(static_cast<unsigned char>(rest[0]))) {
      a.data = read_input_file(rest, "--arg " + a.name);  // buffer:FILE: its size and contents
      a.bytes = a.data.size();
      return a;
    }
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
    std::uint32_t box_rank = 2;
    std::size_t start = 0;
    for (std::size_t i = 0; start <= rest.size(); ++i) {
      std::size_t comma = rest.find(',', start);
      std::string item = rest.substr(start, comma - start);
      start = comma == std::string::npos ? rest.size() + 1 : comma + 1;
      if (i == 0) { a.tensor = item; continue; }
      std::size_t e = item.find('=');
      std::string key = item.substr(0, e), value = e == std::string::npos ? "" : item.substr(e + 1);
      if (key == "shape") a.rank = dims(value, a.shape, a.name);
      else if (key == "box") box_rank = dims(value, a.box, a.name);
      else if (key == "elem") a.elem = static_cast<std::uint32_t>(scalar("u32", value, a.name));
      else throw UsageError(fmt::format("--arg {}: unknown tensormap field {}; expected {}", text, key, kArgForms));
    }
    if (a.tensor.empty()) throw UsageError(fmt::format("--arg {}: name the buffer the tensormap describes", text));
    if (box_rank != a.rank)
      throw UsageError(fmt::format("--arg {}: the box has {} dimensions, the shape {}", text, box_rank, a.rank));
    if (a.elem != 1 && a.elem != 2 && a.elem != 4 && a.elem != 8 && a.elem != 16)
      throw UsageError(fmt::format("--arg {}: elem={} is not an element size (1, 2, 4, 8 or 16 bytes)", text, a.elem));
    std::uint64_t size = a.elem;  // each factor <= 2^31: stop before it could overflow
    for (std::uint32_t d = 0; d < a.rank && size <= (64u << 20); ++d) size *= a.shape[d];
    if (size > (64u << 20))
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
  if (!launch.raw.empty()) adopt_raw();
  else if (launch.args.size() != p.params.size())
    throw UsageError(fmt::format("kernel {} takes {} parameters, {} --arg given", p.kernel,
                                 p.params.size(), launch.args.size()));
  for (const ArgSpec& a : launch.args)
    if (a.kind == ArgSpec::Kind::buffer) {
      auto it = buffers_.emplace(a.name, gpu::global<std::uint8_t>(a.name, a.bytes)).first;
      if (!a.data.empty())  // setup: buffer:FILE's contents
        std::memcpy(it->second.region().bytes(), a.data.data(), a.data.size());
    }
  for (const ArgSpec& a : launch.args)  // a tensormap over a buffer no --arg names creates it
    if (a.kind == ArgSpec::Kind::tensormap && buffers_.count(a.tensor) == 0)
      buffers_.emplace(a.tensor, gpu::global<std::uint8_t>(a.tensor, std::size_t{a.shape[0]} * a.shape[1] *
                                                                         a.shape[2] * a.shape[3] * a.shape[4] * a.elem));
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

std::pair<int, std::uint32_t> LaunchState::shared_target(std::uint64_t addr, int cta,
                                                         const Instr& in) const {
  if (addr < kRankStride) return {cta, static_cast<std::uint32_t>(addr)};
  const std::uint64_t rank = addr / kRankStride - 1;
  const int size = launch_.cluster_size();
  if (rank >= static_cast<std::uint64_t>(size) && !in.cluster)  // past every window
    throw ModelError(fmt::format("`{}` accesses {} bytes at unmapped shared address {:#x} (the "
                                 "CTA's shared memory and its cluster's windows end before it)",
                                 in.opcode, in.type.bytes, addr),
                     in.loc);
  if (!in.cluster && in.space == Space::shared)
    throw ModelError(fmt::format("`{}` reaches CTA rank {}'s shared memory through .shared::cta: "
                                 "a peer's address (mapa) needs .shared::cluster (PTX ISA 5.1.7)",
                                 in.opcode, rank),
                     in.loc);
  if (rank >= static_cast<std::uint64_t>(size))
    throw ModelError(fmt::format("`{}`: shared::cluster address {:#x} names CTA rank {}, outside "
                                 "the cluster of {} CTAs",
                                 in.opcode, addr, rank, size),
                     in.loc);
  return {cta - cta % size + static_cast<int>(rank), static_cast<std::uint32_t>(addr % kRankStride)};
}

std::pair<Region*, std::size_t> LaunchState::resolve(Space space, std::uint64_t addr,
                                                     std::size_t bytes, int cta,
                                                     const Instr& in) const {
  const Program& p = program();
  const std::uint64_t cluster_end = kRankStride * (launch_.cluster_size() + 1);
  if (space == Space::generic && addr >= kSharedWindow && addr < kSharedWindow + cluster_end) {
    space = Space::shared;
    addr -= kSharedWindow;
  }
  if (space == Space::shared) {
    auto [target, offset] = shared_target(addr, cta, in);
    for (std::size_t i = 0; i < p.symbols.size(); ++i) {
      const Symbol& s = p.symbols[i];
      if (s.space == Space::shared && offset >= s.offset && bytes <= s.bytes &&
          offset - s.offset <= s.bytes - bytes)  // no overflow near 2^64
        return {&shared_[i][target].region(), offset - s.offset};
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
                               "bounds of every {})",
                               in.opcode, bytes, space == Space::shared ? "shared" : "global", addr,
                               launch_.raw.empty() ? "buffer: enlarge the --arg buffer?"
                                                   : "allocation and variable"),
                   in.loc);
}

void apply_cluster(Launch& launch, std::optional<std::array<int, 3>> requested) {
  const Program& p = *launch.program;
  const bool directive = p.cluster_dims[0] != 0;
  std::array<int, 3> dims = requested.value_or(directive ? p.cluster_dims : std::array<int, 3>{1, 1, 1});
  if (requested && directive && *requested != p.cluster_dims)
    throw UsageError(fmt::format("kernel {} requires clusters of {}x{}x{} CTAs (.reqnctapercluster); "
                                 "the launch asks for {}x{}x{}",
                                 p.kernel, p.cluster_dims[0], p.cluster_dims[1], p.cluster_dims[2],
                                 dims[0], dims[1], dims[2]));
  if (p.explicit_cluster && !requested && !directive)
    throw UsageError(fmt::format("kernel {} is declared .explicitcluster: launch it with --cluster "
                                 "X[,Y,Z]",
                                 p.kernel));
  for (int d = 0; d < 3; ++d)
    if (dims[d] < 1 || launch.grid[d] % dims[d] != 0)
      throw UsageError(fmt::format("--cluster {}x{}x{}: each dimension must divide the grid's "
                                   "({}x{}x{})",
                                   dims[0], dims[1], dims[2], launch.grid[0], launch.grid[1],
                                   launch.grid[2]));
  if (dims[0] * dims[1] * dims[2] > 16)
    throw UsageError(fmt::format("--cluster {}x{}x{}: a cluster has at most 16 CTAs (sm_90)",
                                 dims[0], dims[1], dims[2]));
  launch.cluster = dims;
  launch.explicit_cluster = requested.has_value() || directive;
}

std::array<int, 3> ctaid_of(const Launch& l, int cta) {
  // PTX ISA 10 (%ctaid, %clusterid, %cluster_ctaid, %cluster_ctarank): the
  // x-first linear rank of a CTA in its cluster; heddle numbers the CTAs of
  // a cluster contiguously (models/gpu), clusters x-first in the grid.
  const int size = l.cluster_size(), cluster = cta / size, rank = cta % size;
  const std::array<int, 3> n{l.grid[0] / l.cluster[0], l.grid[1] / l.cluster[1], l.grid[2] / l.cluster[2]};
  const std::array<int, 3> c{cluster % n[0], cluster / n[0] % n[1], cluster / (n[0] * n[1])};
  const std::array<int, 3> r{rank % l.cluster[0], rank / l.cluster[0] % l.cluster[1],
                             rank / (l.cluster[0] * l.cluster[1])};
  return {c[0] * l.cluster[0] + r[0], c[1] * l.cluster[1] + r[1], c[2] * l.cluster[2] + r[2]};
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
