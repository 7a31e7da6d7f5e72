// The options `heddle cuda` passes to the runtime inside the program, in
// one environment variable (HEDDLE_CUDA_OPTIONS, "key=value" lines).
#pragma once
#include <map>
#include <string>

namespace heddle::cuda {

/// The environment variable carrying the options.
inline constexpr const char* kOptionsVariable = "HEDDLE_CUDA_OPTIONS";

/// The run's options: what `heddle cuda` was given (--check, --strategy,
/// budgets, --out, --replay) plus "status" (the file the runtime reports
/// to), "command" (the program and its arguments) and "runner" ("cuda").
struct Options {
  std::map<std::string, std::string> given;
  std::string check = "*";  // glob over kernel names (demangled without parameters, or mangled)
  std::string status;
};

/// Encodes options as "key=value" lines; UsageError for a value with a newline.
std::string encode_options(const std::map<std::string, std::string>& options);
/// Decodes encode_options' text.
Options decode_options(const std::string& text);

}  // namespace heddle::cuda
