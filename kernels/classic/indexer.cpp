// classic/indexer (SV-COMP indexer.c; Flanagan and Godefroid, POPL 2005):
// N threads insert 4 values each into a 128-slot hash table, each slot
// guarded by its own mutex. Only colliding threads interact: 8^(N-11) traces.
#include <string>
#include <vector>

#include "checker/heddle.hpp"

namespace {
using namespace heddle;

constexpr int kSize = 128;
constexpr int kMax = 4;

struct Table {
  std::vector<Atomic<int>*> slot;
  std::vector<Mutex*> lock;
  /// The benchmark's cas(): a compare-and-swap built from the slot's mutex.
  bool cas(int h, int expected, int desired) {
    lock[h]->lock();
    bool ok = slot[h]->load() == expected;
    if (ok) slot[h]->store(desired);
    lock[h]->unlock();
    return ok;
  }
};

const Registration indexer =
    kernel("classic/indexer", "N threads insert into a hash table with per-slot mutexes")
        .param("n", 12, "threads", 1, 32)
        .body([](const Params& p) {
          const int n = static_cast<int>(p.get_int("n"));
          auto& t = make<Table>();
          for (int h = 0; h < kSize; ++h) {
            t.slot.push_back(&make<Atomic<int>>("table[" + std::to_string(h) + "]", 0));
            t.lock.push_back(&make<Mutex>("cas_mutex[" + std::to_string(h) + "]"));
          }
          for (int tid = 0; tid < n; ++tid)
            spawn("T" + std::to_string(tid), [&t, tid] {
              for (int m = 1; m <= kMax; ++m) {
                int w = m * 11 + tid;
                int h = (w * 7) % kSize;
                while (!t.cas(h, 0, w)) h = (h + 1) % kSize;
              }
            });
        });

}  // namespace
