// demo/lost_update: two workers add to a shared counter with a plain
// read-modify-write. With `locked=true` a mutex protects the update.
#include "checker/heddle.hpp"

namespace {
using namespace heddle;

const Registration lost_update = kernel("demo/lost_update", "two workers increment a shared counter")
                  .flag("locked", false, "protect the increment with a mutex")
                  .param("workers", 2, "number of workers", 2, 4)
                  .preset("racy", {{"locked", "false"}}, Verdict::race)
                  .preset("locked", {{"locked", "true"}})
                  .body([](const Params& p) {
                    auto counter = buffer<int>("counter", 1);
                    auto& m = make<Mutex>("m");
                    bool locked = p.get_bool("locked");
                    long n = p.get_int("workers");
                    for (long w = 0; w < n; ++w) {
                      spawn("worker" + std::to_string(w), [=, &m]() mutable {
                        if (locked) m.lock();
                        counter.store(0, counter.load(0) + 1);
                        if (locked) m.unlock();
                      });
                    }
                    at_exit([=] {
                      check(counter.raw(0) == n, "every increment must be counted");
                    });
                  });

}  // namespace
