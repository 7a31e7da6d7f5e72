// Model errors point at the user's line, never at heddle's own sources or
// headers: where a misuse was detected inside heddle, reports name the
// nearest line of the user's code that heddle knows.
#pragma once
#include <source_location>
#include <string>

namespace heddle {

/// True when `loc` lies in heddle's checker/ or models/ (sources, a
/// subproject copy, or installed headers), not in the user's kernel code.
bool in_heddle(const std::source_location& loc);

/// The detail line naming where a model error happened: "at FILE:LINE" when
/// `thrown` is the user's line; else `fallback_words` (the nearest user line
/// heddle knows, in words).
std::string error_site(const std::source_location& thrown, const std::string& fallback_words);

}  // namespace heddle
