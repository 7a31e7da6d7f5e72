// Golden files of test/golden/expected/: compared byte for byte, rewritten
// with HEDDLE_UPDATE_GOLDEN=1 (then read the difference before committing).
#pragma once
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "test/support/harness.hpp"

namespace heddle::test {

/// Compares `text` with golden file test/golden/expected/NAME.txt (or NAME
/// with another extension: a picture is easier to look at as .svg), or rewrites it.
inline void check_golden(const std::string& name, const std::string& text,
                         const std::string& extension = ".txt") {
  namespace fs = std::filesystem;
  const fs::path file = fs::path(HEDDLE_SOURCE_ROOT) / "test/golden/expected" / (name + extension);
  if (std::getenv("HEDDLE_UPDATE_GOLDEN") != nullptr) {
    std::ofstream(file) << text;
    WARN("rewrote " << file.string() << ": read its difference before committing it");
  }
  REQUIRE(fs::exists(file));
  CHECK(text == slurp(file.string()));
}

/// True when `text` contains `what`.
inline bool has(const std::string& text, const std::string& what) {
  return text.find(what) != std::string::npos;
}

}  // namespace heddle::test
