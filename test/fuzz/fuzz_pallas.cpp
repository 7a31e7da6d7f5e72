// libFuzzer harness: the Pallas front end's reader of heddle_pallas
// exports (untrusted input: a versioned JSON file written by the Python
// exporter, possibly edited or from another version). Loading must succeed
// or throw UsageError; a kernel that loads is explored a few bounded
// executions, whose bugs must be reports, not exceptions or faults
// (fuzz_run.hpp).
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "checker/engine/errors.hpp"
#include "checker/registry.hpp"
#include "test/fuzz/fuzz_run.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace heddle;
  const std::string file =
      fuzz::scratch_file(std::string(reinterpret_cast<const char*>(data), size), ".json");
  try {
    Kernel k = loaders().at("pallas").load(file);
    k.name = "pallas:fuzz";
    fuzz::require_clear_result(explore(k, k.resolve({}), fuzz::bounded_config()));
  } catch (const UsageError& e) {
    fuzz::note(e.what());
    // rejected with a message naming the file: the expected outcome for most inputs
  }
  unlink(file.c_str());
  return 0;
}
