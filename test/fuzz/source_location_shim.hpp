// std::source_location for clang before 15, whose libstdc++ <source_location>
// is empty (it needs __builtin_source_location): the fuzz build is clang's
// (libFuzzer), and heddle's headers use source_location. Force-included
// (-include) by test/fuzz/run.sh; a no-op where the library has it.
// The layout is libstdc++'s (one pointer to {file, function, line, column}):
// the harnesses pass source_locations to heddle code that GCC compiled.
#pragma once
#include <source_location>
#if defined(__clang__) && !defined(__cpp_lib_source_location)
#include <map>
#include <string>
#include <tuple>

namespace std {
struct source_location {
  struct __impl {
    const char* _M_file_name;
    const char* _M_function_name;
    unsigned _M_line;
    unsigned _M_column;
  };
  /// The call site: clang evaluates these builtins where current() is called.
  static source_location current(const char* file = __builtin_FILE(),
                                 const char* function = __builtin_FUNCTION(),
                                 unsigned line = __builtin_LINE(),
                                 unsigned column = __builtin_COLUMN()) noexcept {
    // One record per call site, kept for the program's life (as GCC's are).
    static std::map<std::tuple<std::string, std::string, unsigned, unsigned>, __impl> sites;
    auto it = sites.try_emplace({file, function, line, column}).first;
    it->second = {std::get<0>(it->first).c_str(), std::get<1>(it->first).c_str(), line, column};
    source_location l;
    l.impl_ = &it->second;
    return l;
  }
  constexpr source_location() noexcept = default;
  const char* file_name() const noexcept { return impl_ ? impl_->_M_file_name : ""; }
  const char* function_name() const noexcept { return impl_ ? impl_->_M_function_name : ""; }
  unsigned line() const noexcept { return impl_ ? impl_->_M_line : 0; }
  unsigned column() const noexcept { return impl_ ? impl_->_M_column : 0; }

 private:
  const __impl* impl_ = nullptr;
};
}  // namespace std
#endif
