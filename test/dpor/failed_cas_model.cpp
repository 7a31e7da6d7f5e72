// test/failed_cas: the smallest shape where a failed CAS (its footprint
// refined from a write to a read) left optimal DPOR's sleep sets narrower
// than its wakeup tree assumed, and a Mazurkiewicz trace was lost (found
// on test/random seed 3368, mix=1). x starts at 0.
//   A: fetch_add(x)              (the only step that can make a CAS succeed)
//   B: cas(x, 1 -> 5), or with plain=1 a load(x)
//   C: cas(x, 1 -> 5); load(x)   (the lost trace: C, C's load, A, then B)
// `order` permutes the spawn order, so each of A, B, C is tried as the
// agent the strategies pick first.
#include <array>
#include <functional>
#include <string>
#include <vector>

#include "checker/heddle.hpp"

namespace {
using namespace heddle;

/// "s" or "f": whether a CAS of x from 1 to 5 succeeded.
std::string cas_one_to_five(Atomic<int>& x) {
  int expected = 1;
  return x.compare_exchange(expected, 5) ? "s" : "f";
}

const Registration failed_cas =
    kernel("test/failed_cas", "a failed CAS is a read for DPOR; a later fetch_add makes it succeed")
        .param("plain", 0, "1: B is a plain load instead of a CAS", 0, 1)
        .param("order", 0, "spawn order of A, B, C (a permutation index)", 0, 5)
        .body([](const Params& p) {
          auto& x = make<Atomic<int>>("x", 0);
          const bool plain = p.get_int("plain") == 1;
          const std::array<std::function<void()>, 3> bodies = {
              [&x] { observe("A", std::to_string(x.fetch_add(1))); },
              [&x, plain] { observe("B", plain ? std::to_string(x.load()) : cas_one_to_five(x)); },
              [&x] {
                const std::string cas = cas_one_to_five(x);
                observe("C", cas + std::to_string(x.load()));
              }};
          static constexpr int kOrders[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2},
                                                {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
          for (int t : kOrders[p.get_int("order")])
            spawn(std::string(1, static_cast<char>('A' + t)), bodies[static_cast<std::size_t>(t)]);
          at_exit([&x] { observe("x", std::to_string(x.peek())); });
        });

}  // namespace
