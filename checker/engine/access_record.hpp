// What the shadow state remembers of one access: the race check (memory)
// and the race hint (race_hint) both read it.
#pragma once
#include <cstdint>
#include <source_location>

#include "checker/engine/ids.hpp"

namespace heddle {

/// One earlier access remembered by the shadow state (an epoch plus report data).
struct AccessRecord {
  AgentId agent{};
  std::uint32_t time = 0;        // 0: no access
  std::uint32_t step = 0;
  Proxy proxy = Proxy::generic;
  const char* op = "";
  bool atomic = false;           // an atomic read-modify-write (a reduction): atomics do not race
                                 // with each other, only with plain accesses
  std::source_location loc;
};

}  // namespace heddle
