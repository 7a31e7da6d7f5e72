// Test helper: whether a bug report's title or detail lines contain a text.
#pragma once
#include <string>

#include "checker/engine/bug.hpp"

namespace heddle::test {

inline bool mentions(const BugReport& b, const std::string& text) {
  if (b.title.find(text) != std::string::npos) return true;
  for (const auto& d : b.details)
    if (d.find(text) != std::string::npos) return true;
  return false;
}

}  // namespace heddle::test
