// Source locations of the user's Python code. heddle's engine and reports
// carry std::source_location; a kernel exported from JAX names Python lines,
// so the interpreter makes std::source_location values that point at them.
#pragma once
#include <cstdint>
#include <source_location>
#include <string>

namespace heddle::pallas {

/// A std::source_location naming `file:line` in `function` (interned; valid
/// for the life of the process).
std::source_location python_location(const std::string& file, std::uint32_t line,
                                     const std::string& function);

}  // namespace heddle::pallas
