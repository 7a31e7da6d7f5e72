// classic/filesystem (TRACER's filesystem.c; Flanagan and Godefroid, POPL
// 2005): threads allocate a block for their inode under per-inode and
// per-block mutexes. Threads 0 and 13 share a start block: 2^(N-13) traces.
#include <string>
#include <vector>

#include "checker/heddle.hpp"

namespace {
using namespace heddle;

constexpr int kInodes = 32;
constexpr int kBlocks = 26;

struct Fs {
  std::vector<Atomic<int>*> inode, busy;
  std::vector<Mutex*> locki, lockb;
};

const Registration filesystem =
    kernel("classic/filesystem", "threads allocate disk blocks for inodes under fine-grained locks")
        .param("n", 14, "threads", 1, 40)
        .body([](const Params& p) {
          const int n = static_cast<int>(p.get_int("n"));
          auto& fs = make<Fs>();
          for (int i = 0; i < kInodes; ++i) {
            fs.inode.push_back(&make<Atomic<int>>("inode[" + std::to_string(i) + "]", 0));
            fs.locki.push_back(&make<Mutex>("locki[" + std::to_string(i) + "]"));
          }
          for (int b = 0; b < kBlocks; ++b) {
            fs.busy.push_back(&make<Atomic<int>>("busy[" + std::to_string(b) + "]", 0));
            fs.lockb.push_back(&make<Mutex>("lockb[" + std::to_string(b) + "]"));
          }
          for (int tid = 0; tid < n; ++tid)
            spawn("T" + std::to_string(tid), [&fs, tid] {
              int i = tid % kInodes;
              fs.locki[i]->lock();
              if (fs.inode[i]->load() == 0) {
                int b = (i * 2) % kBlocks;
                for (int tries = 0; tries < 10; ++tries) {
                  fs.lockb[b]->lock();
                  if (fs.busy[b]->load() == 0) {
                    fs.busy[b]->store(1);
                    fs.inode[i]->store(b + 1);
                    fs.lockb[b]->unlock();
                    break;
                  }
                  fs.lockb[b]->unlock();
                  b = (b + 1) % kBlocks;
                }
              }
              fs.locki[i]->unlock();
            });
        });

}  // namespace
