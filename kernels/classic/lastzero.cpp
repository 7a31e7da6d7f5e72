// classic/lastzero: Abdulla et al., POPL 2014, Fig. 4 (Concuerror's lastzero.c).
// T0 scans a[N], a[N-1], ... down to the first zero; Tj sets a[j] := a[j-1]+1.
// Optimal DPOR explores (N+3)*2^(N-2) traces.
#include <string>
#include <vector>

#include "checker/heddle.hpp"

namespace {
using namespace heddle;

const Registration lastzero =
    kernel("classic/lastzero", "T0 scans for the last zero while T1..TN copy a[j-1]+1 into a[j]")
        .param("n", 3, "writer threads (array a[0..n])", 1, 20)
        .body([](const Params& p) {
          const int n = static_cast<int>(p.get_int("n"));
          auto& a = make<std::vector<Atomic<int>*>>();
          for (int i = 0; i <= n; ++i) a.push_back(&make<Atomic<int>>("a[" + std::to_string(i) + "]", 0));
          spawn("T0", [&a, n] {
            int i = n;
            while (a[i]->load() != 0) --i;
            observe("zero", std::to_string(i));
          });
          for (int j = 1; j <= n; ++j)
            spawn("T" + std::to_string(j), [&a, j] { a[j]->store(a[j - 1]->load() + 1); });
        });

}  // namespace
