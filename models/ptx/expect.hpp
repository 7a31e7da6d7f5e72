// Input data and expected outputs of a PTX launch (issue 50.13), as the
// Pallas front end's expect= gives them: `--arg in=buffer:FILE` fills a
// buffer from a file, `--expect out=FILE[,tol=X]` checks what the kernel
// left in it at kernel exit, in every execution.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "models/ptx/launch.hpp"

namespace heddle::ptx {

/// The bytes of file `path`, for `what` (an option) in errors: UsageError
/// when it cannot be read, is empty or is over 64 MiB (a buffer's limit).
std::vector<std::uint8_t> read_input_file(const std::string& path, const std::string& what);

/// One --expect NAME=FILE[,tol=X]: buffer argument `arg` must end holding
/// `bytes`, exactly, or as float32 values within `tol` (absolute) when given.
struct Expectation {
  std::string name, file;
  std::size_t arg = 0;  // index of the buffer's --arg
  std::vector<std::uint8_t> bytes;
  bool tolerant = false;
  double tol = 0;
};

/// Parses one --expect against the launch's arguments: UsageError unless
/// NAME is a buffer --arg whose size is the file's.
Expectation parse_expect(const std::string& text, const std::vector<ArgSpec>& args);

/// At kernel exit: fails a check naming the first difference when the
/// buffer does not hold what `e` expects.
void check_expectation(const LaunchState& state, const Expectation& e);

}  // namespace heddle::ptx
