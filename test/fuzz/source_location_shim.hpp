// std::source_location for clang before 15, whose libstdc++ <source_location>
// is empty (it needs __builtin_source_location): the fuzz build is clang's
// (libFuzzer), and heddle's headers use source_location. Force-included
// (-include) by test/fuzz/meson.build; a no-op where the library has it.
#pragma once
#include <source_location>
#if defined(__clang__) && !defined(__cpp_lib_source_location)
namespace std {
struct source_location {
  /// The call site: clang evaluates these builtins where current() is called.
  static constexpr source_location current(const char* file = __builtin_FILE(),
                                           const char* function = __builtin_FUNCTION(),
                                           unsigned line = __builtin_LINE(),
                                           unsigned column = __builtin_COLUMN()) noexcept {
    source_location l;
    l.file_ = file;
    l.function_ = function;
    l.line_ = line;
    l.column_ = column;
    return l;
  }
  constexpr source_location() noexcept = default;
  constexpr const char* file_name() const noexcept { return file_; }
  constexpr const char* function_name() const noexcept { return function_; }
  constexpr unsigned line() const noexcept { return line_; }
  constexpr unsigned column() const noexcept { return column_; }

 private:
  const char* file_ = "";
  const char* function_ = "";
  unsigned line_ = 0;
  unsigned column_ = 0;
};
}  // namespace std
#endif
