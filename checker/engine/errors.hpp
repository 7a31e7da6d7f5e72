// Exceptions that carry model errors out of kernel code to the controller.
#pragma once
#include <source_location>
#include <stdexcept>
#include <string>

namespace heddle {

/// A misuse of heddle's primitives by a model (bad index, wrong state).
/// Reported as a model error, with the source line of the misuse.
struct ModelError : std::runtime_error {
  explicit ModelError(const std::string& what,
                      std::source_location loc = std::source_location::current())
      : std::runtime_error(what), where(loc) {}
  std::source_location where;
};

/// A failed heddle::check() in a model: reported as an assertion failure.
struct AssertionFailure : std::runtime_error {
  AssertionFailure(const std::string& what, std::source_location loc)
      : std::runtime_error(what), where(loc) {}
  std::source_location where;
};

/// Thrown into a fiber whose step ran past the step timeout.
struct StepTimeout : std::runtime_error {
  StepTimeout() : std::runtime_error("step timeout") {}
};

/// An invalid command line, kernel name, parameter or schedule file (exit 2).
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace heddle
