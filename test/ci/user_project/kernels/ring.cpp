// myproj/ring: a producer passes items to a consumer through a two-slot ring
// guarded by two counting semaphores ("empty" slots and "full" slots).
// The buggy variant signals a slot full before writing it.
#include "checker/heddle.hpp"

namespace {
using namespace heddle;

const auto ring =
    kernel("myproj/ring", "producer/consumer over a two-slot ring")
        .param("items", 3, "items passed through the ring", 1, 4)
        .flag("signal_early", false, "signal the slot full before writing it (the bug)")
        .preset("correct", {{"signal_early", "false"}})
        .preset("signal_early", {{"signal_early", "true"}}, Verdict::race)
        .body([](const Params& p) {
          const int items = static_cast<int>(p.get_int("items"));
          const bool early = p.get_bool("signal_early");
          auto slots = buffer<int>("ring", 2);
          auto& empty = make<Semaphore>("empty", 2);
          auto& full = make<Semaphore>("full", 0);
          spawn("producer", [=, &empty, &full]() mutable {
            for (int i = 0; i < items; ++i) {
              empty.wait();
              if (early) full.signal();
              slots.store(i % 2, i + 1);  // write the slot
              if (!early) full.signal();
            }
          });
          spawn("consumer", [=, &empty, &full]() mutable {
            int total = 0;
            for (int i = 0; i < items; ++i) {
              full.wait();
              total += slots.load(i % 2);  // read the slot
              empty.signal();
            }
            check(total == items * (items + 1) / 2, "an item was lost or read twice");
          });
        });

}  // namespace
