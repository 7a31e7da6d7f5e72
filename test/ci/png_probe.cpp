#include "test/ci/png_probe.hpp"

#include <cstdlib>
#include <stdexcept>

#include "test/ci/ci_paths.hpp"
#include "test/support/harness.hpp"
#if HEDDLE_HAVE_ZLIB
#include <zlib.h>
#endif

namespace heddle::test {
namespace {
std::uint32_t be32(const std::string& s, std::size_t at) {
  auto b = [&](std::size_t k) { return static_cast<std::uint32_t>(static_cast<unsigned char>(s[at + k])); };
  return b(0) << 24 | b(1) << 16 | b(2) << 8 | b(3);
}

#if HEDDLE_HAVE_ZLIB
int paeth(int a, int b, int c) {
  int p = a + b - c, pa = std::abs(p - a), pb = std::abs(p - b), pc = std::abs(p - c);
  return pa <= pb && pa <= pc ? a : (pb <= pc ? b : c);
}

/// Inflates the IDAT stream and undoes the per-row filters (PNG spec, section 9).
void decode(Png& png, const std::string& idat, int channels) {
  const std::size_t stride = png.width * static_cast<std::size_t>(channels);
  std::vector<std::uint8_t> raw((stride + 1) * png.height);
  uLongf len = raw.size();
  if (uncompress(raw.data(), &len, reinterpret_cast<const Bytef*>(idat.data()), idat.size()) != Z_OK ||
      len != raw.size())
    throw std::runtime_error("PNG: cannot inflate the image data");
  std::vector<std::uint8_t> prev(stride, 0), cur(stride);
  png.rgba.resize(png.width * png.height * 4);
  for (std::uint32_t y = 0; y < png.height; ++y) {
    const std::uint8_t* row = &raw[y * (stride + 1)];
    for (std::size_t x = 0; x < stride; ++x) {
      int a = x >= static_cast<std::size_t>(channels) ? cur[x - channels] : 0, b = prev[x];
      int c = x >= static_cast<std::size_t>(channels) ? prev[x - channels] : 0;
      int pred = 0;
      switch (row[0]) {
        case 0: pred = 0; break;
        case 1: pred = a; break;
        case 2: pred = b; break;
        case 3: pred = (a + b) / 2; break;
        case 4: pred = paeth(a, b, c); break;
        default: throw std::runtime_error("PNG: unknown row filter");
      }
      cur[x] = static_cast<std::uint8_t>(row[1 + x] + pred);
    }
    for (std::uint32_t x = 0; x < png.width; ++x)
      for (int k = 0; k < 4; ++k)
        png.rgba[(y * png.width + x) * 4 + k] = k < channels ? cur[x * channels + k] : 255;
    std::swap(prev, cur);
  }
  png.decoded = true;
}
#endif
}  // namespace

std::uint32_t Png::rgb(std::uint32_t x, std::uint32_t y) const {
  const std::uint8_t* p = &rgba[(static_cast<std::size_t>(y) * width + x) * 4];
  return static_cast<std::uint32_t>(p[0]) << 16 | static_cast<std::uint32_t>(p[1]) << 8 | p[2];
}

Png read_png(const std::string& path) {
  std::string s = slurp(path);
  if (s.size() < 33 || s.compare(0, 8, "\x89PNG\r\n\x1a\n") != 0 || s.compare(12, 4, "IHDR") != 0)
    throw std::runtime_error(path + " is not a PNG file");
  Png png;
  png.width = be32(s, 16);
  png.height = be32(s, 20);
  [[maybe_unused]] int depth = static_cast<unsigned char>(s[24]);
  [[maybe_unused]] int color = static_cast<unsigned char>(s[25]);
  [[maybe_unused]] int interlace = static_cast<unsigned char>(s[28]);
#if HEDDLE_HAVE_ZLIB
  if (depth != 8 || (color != 2 && color != 6) || interlace != 0) return png;
  std::string idat;
  for (std::size_t at = 8; at + 8 <= s.size();) {
    std::uint32_t len = be32(s, at);
    std::string type = s.substr(at + 4, 4);
    if (type == "IDAT") idat += s.substr(at + 8, len);
    at += 12 + len;
  }
  decode(png, idat, color == 6 ? 4 : 3);
#endif
  return png;
}

}  // namespace heddle::test
