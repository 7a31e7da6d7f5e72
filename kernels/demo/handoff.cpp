// demo/handoff: the README's tutorial kernel. A producer fills a buffer and
// tells a consumer through a semaphore; the shipped version signals first.
#include "checker/heddle.hpp"

namespace {
using namespace heddle;

const auto handoff =
    kernel("demo/handoff", "a producer hands a filled buffer to a consumer (tutorial)")
        .flag("fixed", false, "signal after writing the buffer, not before")
        .preset("shipped", {{"fixed", "false"}}, Verdict::race).naming({"data"})
        .preset("fixed", {{"fixed", "true"}}).exhaustive()
        .body([](const Params& p) {
          const bool fixed = p.get_bool("fixed");
          auto data = buffer<int>("data", 4);
          auto& ready = make<Semaphore>("ready", 0);
          spawn("producer", [=, &ready]() mutable {
            if (!fixed) ready.signal();  // the bug: the consumer may start reading now
            for (int i = 0; i < 4; ++i) data.store(i, 10 * i);
            if (fixed) ready.signal();
          });
          spawn("consumer", [=, &ready]() mutable {
            ready.wait();
            int sum = 0;
            for (int i = 0; i < 4; ++i) sum += data.load(i);
            check(sum == 60, "the consumer saw a partly written buffer");
          });
        });

}  // namespace
