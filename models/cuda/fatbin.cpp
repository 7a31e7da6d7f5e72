// Fatbinary layout (what nvcc 12/13 writes; there is no public spec, so
// every field used is checked against the sizes around it): a 16-byte
// header {u32 magic 0xba55ed50, u16 version, u16 header size, u64 size of
// the entries}, then entries, each {u16 kind (1 PTX, 2 ELF), u16 version,
// u32 header size, u64 padded payload size, u32 compressed payload size
// (0: not compressed, the payload fills the padded size), u32, u32, u32
// arch, u32 address bits, u32, u64 flags, u64, u64 uncompressed size, ...}
// followed by its payload. SASS entries have 64-byte headers, PTX 104. nvcc 13 compresses payloads by default with
// zstd (the payload starts with the zstd frame magic); --compress-mode=speed
// uses LZ4 blocks (flag 0x2000). Both libraries are loaded when needed.
#include "models/cuda/fatbin.hpp"

#include <dlfcn.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "checker/engine/errors.hpp"

namespace heddle::cuda {
namespace {

constexpr std::uint32_t kWrapperMagic = 0x466243b1;
constexpr std::uint32_t kFatbinMagic = 0xba55ed50;
constexpr std::uint64_t kFlagLz4 = 0x2000;
constexpr std::uint8_t kZstdMagic[4] = {0x28, 0xb5, 0x2f, 0xfd};

template <class T>
T field(const std::uint8_t* p, std::size_t at) {
  T v;
  std::memcpy(&v, p + at, sizeof v);
  return v;
}

// A function of a compression library, loaded once.
void* library_function(const char* lib, const char* name) {
  void* handle = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
  void* fn = handle ? dlsym(handle, name) : nullptr;
  if (fn == nullptr)
    throw UsageError(fmt::format("the program's device code is compressed and {} could not be "
                                 "loaded ({}): install it, or rebuild with nvcc --no-compress",
                                 lib, dlerror()));
  return fn;
}

std::string unzstd(const std::uint8_t* data, std::size_t size, std::size_t expect) {
  using Decompress = std::size_t (*)(void*, std::size_t, const void*, std::size_t);
  using IsError = unsigned (*)(std::size_t);
  static auto decompress = reinterpret_cast<Decompress>(library_function("libzstd.so.1", "ZSTD_decompress"));
  static auto is_error = reinterpret_cast<IsError>(library_function("libzstd.so.1", "ZSTD_isError"));
  std::string out(expect, '\0');
  std::size_t n = decompress(out.data(), out.size(), data, size);
  if (is_error(n) || n != expect)
    throw UsageError("the program's fatbinary holds a zstd payload that does not decompress");
  return out;
}

std::string unlz4(const std::uint8_t* data, std::size_t size, std::size_t expect) {
  using Decompress = int (*)(const char*, char*, int, int);
  static auto decompress = reinterpret_cast<Decompress>(library_function("liblz4.so.1", "LZ4_decompress_safe"));
  std::string out(expect, '\0');
  int n = decompress(reinterpret_cast<const char*>(data), out.data(), static_cast<int>(size),
                     static_cast<int>(out.size()));
  if (n < 0 || static_cast<std::size_t>(n) != expect)
    throw UsageError("the program's fatbinary holds an LZ4 payload that does not decompress");
  return out;
}

}  // namespace

std::vector<FatbinEntry> read_fatbin(const void* wrapper) {
  const auto* w = static_cast<const std::uint8_t*>(wrapper);
  const std::uint8_t* fb = w;
  if (field<std::uint32_t>(w, 0) == kWrapperMagic) fb = field<const std::uint8_t*>(w, 8);
  if (fb == nullptr || field<std::uint32_t>(fb, 0) != kFatbinMagic)
    throw UsageError("the program registers device code heddle cannot read (no fatbinary magic)");
  const std::uint16_t header = field<std::uint16_t>(fb, 6);
  const std::uint64_t total = field<std::uint64_t>(fb, 8);
  std::vector<FatbinEntry> out;
  for (std::uint64_t at = header; at + 64 <= header + total;) {
    const std::uint8_t* e = fb + at;
    const auto kind = field<std::uint16_t>(e, 0);
    const auto entry_header = field<std::uint32_t>(e, 4);
    const auto padded = field<std::uint64_t>(e, 8);
    const std::uint64_t stored = field<std::uint32_t>(e, 16), size = stored ? stored : padded;
    const auto flags = field<std::uint64_t>(e, 40);
    const auto full = field<std::uint64_t>(e, 56);
    if (entry_header < 64 || size > padded || at + entry_header + padded > header + total)
      throw UsageError(fmt::format("the program's fatbinary entry at byte {} is malformed", at));
    const std::uint8_t* data = e + entry_header;
    FatbinEntry entry;
    entry.ptx = kind == 1;
    entry.arch = static_cast<int>(field<std::uint32_t>(e, 28));
    if (size >= 4 && std::memcmp(data, kZstdMagic, 4) == 0) entry.payload = unzstd(data, size, full);
    else if ((flags & kFlagLz4) != 0 && full > 0) entry.payload = unlz4(data, size, full);
    else entry.payload.assign(reinterpret_cast<const char*>(data), size);
    out.push_back(std::move(entry));
    at += entry_header + padded;
  }
  return out;
}

std::string pick_ptx(const std::vector<FatbinEntry>& entries) {
  const FatbinEntry* best = nullptr;
  std::vector<int> sass;
  for (const FatbinEntry& e : entries) {
    if (!e.ptx) sass.push_back(e.arch);
    else if (e.arch <= 90 && (best == nullptr || e.arch > best->arch)) best = &e;
  }
  if (best != nullptr) {
    std::string text = best->payload;
    text.resize(std::strlen(text.c_str()));  // the payload is NUL-padded
    return text;
  }
  std::string have = sass.empty() ? "no device code" : "SASS only, for";
  for (int a : sass) have += fmt::format(" sm_{}", a);
  throw UsageError(fmt::format("the program carries no PTX for heddle to interpret ({}): rebuild "
                               "it with nvcc -gencode arch=compute_90a,code=compute_90a",
                               have));
}

}  // namespace heddle::cuda
