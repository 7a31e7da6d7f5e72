// The running step's footprint, once the operation knows what it touched.
#include <algorithm>

#include "checker/engine/execution.hpp"

namespace heddle {

void Execution::refine_footprint(Footprint fp) {
  if (trace_.empty()) return;
  trace_.back().footprint = std::move(fp);
}

void Execution::refine_access(const Access& a, bool keep_updates) {
  if (now_.running == nullptr || trace_.empty() || trace_.back().agent != now_.running->id) return;
  Footprint& fp = trace_.back().footprint;
  auto replaced = [&](const Access& x) {
    return x.object == a.object && !(keep_updates && x.update != 0);
  };
  auto it = std::find_if(fp.begin(), fp.end(), replaced);
  if (it == fp.end()) return fp.push_back(a);
  *it = a;
  fp.erase(std::remove_if(it + 1, fp.end(), replaced), fp.end());
}

bool Execution::step_announced(const Access& a) const {
  if (now_.running == nullptr || now_.running->kind != Agent::Kind::thread) return true;
  if (trace_.empty() || trace_.back().agent != now_.running->id) return false;
  const Footprint& fp = static_cast<const ThreadAgent&>(*now_.running).op.footprint;
  return std::any_of(fp.begin(), fp.end(), [&](const Access& x) {
    return x.object == a.object && x.lo <= a.lo && a.hi <= x.hi && (x.write || !a.write) &&
           x.update == 0;
  });
}

}  // namespace heddle
