// libFuzzer harness: the schedule / counterexample reader (untrusted input:
// schedule files travel with bug reports). Any input must parse or throw
// UsageError; a parsed schedule must write and read back to itself.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "checker/engine/errors.hpp"
#include "checker/engine/schedule.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  heddle::Schedule s;
  try {
    s = heddle::read_schedule(text, "fuzz.json");
  } catch (const heddle::UsageError&) {
    return 0;  // rejected with a message: the expected outcome for most inputs
  }
  // Round trip: what heddle writes it reads back as the same value.
  if (!(heddle::read_schedule(heddle::write_schedule(s), "again.json") == s)) std::abort();
  return 0;
}
