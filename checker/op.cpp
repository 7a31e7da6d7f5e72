#include "checker/op.hpp"

namespace heddle {

bool conflicts(const Footprint& a, const Footprint& b) noexcept {
  for (const auto& x : a)
    for (const auto& y : b)
      if (x.object == y.object && (x.write || y.write) && x.lo < y.hi && y.lo < x.hi) return true;
  return false;
}

}  // namespace heddle
