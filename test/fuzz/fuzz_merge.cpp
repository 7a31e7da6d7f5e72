// libFuzzer harness: `heddle merge`'s reader of shard summaries (untrusted
// input: summaries arrive from other machines). The input is one to four
// summaries separated by a line "----"; merge must accept them or throw
// UsageError, never anything else, and never hang on the counts they claim.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

#include "checker/engine/errors.hpp"
#include "checker/report/shard_summary.hpp"

namespace {
// The summaries in `text`, split at each "\n----\n" (at most four).
std::vector<std::string> summaries(const std::string& text) {
  std::vector<std::string> out;
  std::size_t from = 0;
  while (out.size() < 3) {
    std::size_t cut = text.find("\n----\n", from);
    if (cut == std::string::npos) break;
    out.push_back(text.substr(from, cut - from));
    from = cut + 6;
  }
  out.push_back(text.substr(from));
  return out;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  std::vector<std::string> files;
  for (const auto& s : summaries(text)) {
    files.push_back("/tmp/heddle-fuzz-merge-" + std::to_string(getpid()) + "-" +
                    std::to_string(files.size()) + ".json");
    std::ofstream(files.back(), std::ios::binary) << s;
  }
  try {
    (void)heddle::merge_shards(files);
  } catch (const heddle::UsageError&) {
    // rejected with a message naming the file: the expected outcome for most inputs
  }
  for (const auto& f : files) unlink(f.c_str());
  return 0;
}
