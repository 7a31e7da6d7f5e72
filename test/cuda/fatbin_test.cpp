// The fatbinary reader on hand-built images (the layout fatbin.cpp
// documents): the PTX entry is found among SASS entries, the newest
// architecture up to sm_90 wins, and SASS alone is a usage error.
#include <catch2/catch.hpp>

#include <cstring>
#include <string>
#include <vector>

#include "checker/engine/errors.hpp"
#include "models/cuda/fatbin.hpp"

using Catch::Matchers::Contains;
using heddle::cuda::pick_ptx;
using heddle::cuda::read_fatbin;

namespace {

template <class T>
void put(std::vector<std::uint8_t>& out, std::size_t at, T v) {
  if (out.size() < at + sizeof v) out.resize(at + sizeof v);
  std::memcpy(out.data() + at, &v, sizeof v);
}

// A fatbinary of uncompressed entries: {kind (1 PTX, 2 SASS), arch, payload}.
std::vector<std::uint8_t> fatbin(const std::vector<std::tuple<int, int, std::string>>& entries) {
  std::vector<std::uint8_t> out(16);
  for (const auto& [kind, arch, payload] : entries) {
    const std::size_t at = out.size(), padded = (payload.size() + 7) / 8 * 8;
    put<std::uint16_t>(out, at, static_cast<std::uint16_t>(kind));
    put<std::uint16_t>(out, at + 2, 0x0101);
    put<std::uint32_t>(out, at + 4, 72);
    put<std::uint64_t>(out, at + 8, padded);
    put<std::uint32_t>(out, at + 16, static_cast<std::uint32_t>(payload.size()));
    put<std::uint32_t>(out, at + 28, static_cast<std::uint32_t>(arch));
    put<std::uint64_t>(out, at + 40, 0);
    put<std::uint64_t>(out, at + 56, 0);
    out.resize(at + 72 + padded, 0);
    std::memcpy(out.data() + at + 72, payload.data(), payload.size());
  }
  put<std::uint32_t>(out, 0, 0xba55ed50u);
  put<std::uint16_t>(out, 4, 1);
  put<std::uint16_t>(out, 6, 16);
  put<std::uint64_t>(out, 8, out.size() - 16);
  return out;
}

}  // namespace

TEST_CASE("fatbin: the PTX entry for the newest architecture up to sm_90 is taken", "[cuda]") {
  auto image = fatbin({{2, 90, std::string("\x7f" "ELF", 4)},
                       {1, 80, ".version 8.0 // sm_80"},
                       {1, 90, ".version 9.0 // sm_90"},
                       {1, 100, ".version 9.0 // sm_100"}});
  auto entries = read_fatbin(image.data());
  REQUIRE(entries.size() == 4);
  CHECK_FALSE(entries[0].ptx);
  CHECK(entries[2].arch == 90);
  CHECK(pick_ptx(entries) == ".version 9.0 // sm_90");
}

TEST_CASE("fatbin: through nvcc's wrapper struct", "[cuda]") {
  auto image = fatbin({{1, 90, ".entry k() { ret; }"}});
  struct {
    std::uint32_t magic = 0x466243b1, version = 1;
    const void* data;
    const void* unused = nullptr;
  } wrapper{0x466243b1, 1, image.data()};
  CHECK(pick_ptx(read_fatbin(&wrapper)) == ".entry k() { ret; }");
}

TEST_CASE("fatbin: SASS only is an error that gives the -gencode flag", "[cuda]") {
  auto image = fatbin({{2, 90, "ELF"}, {2, 80, "ELF"}});
  try {
    pick_ptx(read_fatbin(image.data()));
    FAIL("no error");
  } catch (const heddle::UsageError& e) {
    CHECK_THAT(e.what(), Contains("SASS only, for sm_90 sm_80"));
    CHECK_THAT(e.what(), Contains("-gencode arch=compute_90a,code=compute_90a"));
  }
}

TEST_CASE("fatbin: a malformed image is refused", "[cuda]") {
  auto image = fatbin({{1, 90, ".version 9.0"}});
  put<std::uint64_t>(image, 16 + 8, 1 << 20);  // the entry claims more bytes than there are
  CHECK_THROWS_AS(read_fatbin(image.data()), heddle::UsageError);
  std::vector<std::uint8_t> junk(64, 0);
  CHECK_THROWS_AS(read_fatbin(junk.data()), heddle::UsageError);
}
