// Reading an untrusted input file whole (a schedule, a shard summary), its
// size checked against a limit before any of it is read.
#pragma once
#include <cstdint>
#include <string>

namespace heddle {

/// What read_bounded found.
struct BoundedRead {
  enum class Status { ok, cannot_open, too_big, io_error };
  Status status = Status::ok;
  std::string text;        // the file, when ok
  std::uint64_t size = 0;  // its size in bytes, when too_big
  std::string error;       // why it could not be opened (strerror), when cannot_open
};

/// Reads `path` whole, unless it is over `max_bytes` (refused before reading).
BoundedRead read_bounded(const std::string& path, std::uint64_t max_bytes);

/// "it is N MiB, over heddle's limit of M MiB", for a `size` over `max_bytes`.
std::string over_limit_words(std::uint64_t size, std::uint64_t max_bytes);

}  // namespace heddle
