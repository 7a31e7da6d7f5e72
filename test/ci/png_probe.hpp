// Reads a PNG screenshot for tests: its size always, its pixels when heddle's
// tests were built with zlib (8-bit RGB/RGBA, non-interlaced, as Chromium writes).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace heddle::test {

/// A PNG's size and, when `decoded`, its pixels as RGBA rows.
struct Png {
  std::uint32_t width = 0, height = 0;
  bool decoded = false;
  std::vector<std::uint8_t> rgba;  // width * height * 4 bytes when decoded
  /// Pixel (x, y) as 0xRRGGBB (requires decoded).
  std::uint32_t rgb(std::uint32_t x, std::uint32_t y) const;
};

/// Reads `path`; throws std::runtime_error when it is not a PNG.
Png read_png(const std::string& path);

}  // namespace heddle::test
