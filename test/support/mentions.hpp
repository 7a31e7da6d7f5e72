// Test helper: whether a bug report's title or detail lines contain a text.
#pragma once
#include <algorithm>
#include <string>

#include "checker/engine/bug.hpp"

namespace heddle::test {

inline bool mentions(const BugReport& b, const std::string& text) {
  if (b.title.find(text) != std::string::npos) return true;
  for (const auto& d : b.details)
    if (d.find(text) != std::string::npos) return true;
  return false;
}

/// True when one of a race's two accesses is operation `op`.
inline bool accessed_by(const BugReport& b, const std::string& op) {
  return std::any_of(b.accesses.begin(), b.accesses.end(),
                     [&](const AccessInfo& a) { return a.op == op; });
}

}  // namespace heddle::test
