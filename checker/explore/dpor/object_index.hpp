// Which positions of a finished trace touch each object, so that race and
// clock analysis visit only earlier events on the same objects instead of
// scanning the whole trace (shared by OptimalDpor and POP's RaceFinder).
#pragma once
#include <algorithm>
#include <cstdint>
#include <vector>

#include "checker/engine/op.hpp"

namespace heddle::dpor {

/// Ascending positions per object of one finished trace.
class ObjectIndex {
 public:
  /// Forgets the last trace (keeps the lists' storage).
  void clear() {
    for (auto& list : by_object_) list.clear();
  }
  /// Forgets the positions at and after k (keeps those before).
  void truncate(std::size_t k) {
    for (auto& list : by_object_)
      while (!list.empty() && list.back() >= k) list.pop_back();
  }
  /// Records that position k (ascending over calls) touches `fp`'s objects.
  void add(std::size_t k, const Footprint& fp) {
    for (const auto& a : fp) {
      const std::size_t o = index(a.object);
      if (o >= by_object_.size()) by_object_.resize(o + 1);
      auto& list = by_object_[o];
      if (list.empty() || list.back() != k) list.push_back(static_cast<std::uint32_t>(k));
    }
  }
  /// Fills `out` with the positions below `limit` that touch an object of
  /// `fp`, ascending, each once.
  void candidates(const Footprint& fp, std::size_t limit, std::vector<std::uint32_t>& out) const {
    candidates(fp, limit, out, [](std::uint32_t, const Access&) { return false; });
  }
  /// Same, but an object's positions are visited newest first and stop after
  /// one that `covers(position, entry)`: a plain write of the entry's bytes,
  /// which every earlier access to those bytes happens before (their clocks
  /// joined into it), so nothing earlier on that object adds a clock or an
  /// immediate race. Keeps one long execution's analysis linear.
  template <class Covers>
  void candidates(const Footprint& fp, std::size_t limit, std::vector<std::uint32_t>& out,
                  Covers covers) const {
    out.clear();
    for (const auto& a : fp) {
      const std::size_t o = index(a.object);
      if (o >= by_object_.size()) continue;
      const auto& list = by_object_[o];
      const std::size_t first = out.size();
      auto end = std::lower_bound(list.begin(), list.end(), static_cast<std::uint32_t>(limit));
      for (auto it = end; it != list.begin();) {
        const std::uint32_t i = *--it;
        out.push_back(i);
        if (covers(i, a)) break;
      }
      std::reverse(out.begin() + static_cast<std::ptrdiff_t>(first), out.end());
    }
    if (fp.size() > 1) {  // several objects: visit each earlier event once, in order
      std::sort(out.begin(), out.end());
      out.erase(std::unique(out.begin(), out.end()), out.end());
    }
  }

 private:
  std::vector<std::vector<std::uint32_t>> by_object_;
};

}  // namespace heddle::dpor
