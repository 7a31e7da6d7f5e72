// classic/readers (RCMC's readers.c): one writer sets x := 42 while N readers
// read x. Reads commute, so there are 2^N traces (each reader before or after).
#include <string>

#include "checker/heddle.hpp"

namespace {
using namespace heddle;

const Registration readers =
    kernel("classic/readers", "a writer and N readers of one atomic")
        .param("n", 2, "reader threads", 1, 20)
        .body([](const Params& p) {
          const int n = static_cast<int>(p.get_int("n"));
          auto& x = make<Atomic<int>>("x", 0);
          spawn("W", [&x] { x.store(42); });
          for (int r = 1; r <= n; ++r)
            spawn("R" + std::to_string(r), [&x, r] { observe("R" + std::to_string(r), std::to_string(x.load())); });
        });

}  // namespace
