// hopper/tensormap_update: one warp rewrites a TMA descriptor in global
// memory in place (tensormap.replace.global_address on .global), orders it
// for the tensormap proxy with fence.proxy.tensormap::generic.release and
// signals a flag (st.release); a second warp acquires the flag, runs
// fence.proxy.tensormap::generic.acquire and issues a TMA load with the new
// descriptor. The release/acquire proxy pair is uni-directional and needs
// both halves (PTX ISA §9.7.13.4): `no_release` and `no_acquire` leave one
// out, a race between the descriptor write and the load's descriptor read
// (whose box may then come from the old address).
#include <fmt/format.h>

#include "models/gpu/gpu.hpp"

namespace {
using namespace heddle;
using namespace heddle::gpu;

constexpr std::size_t kBox = 2;

const Registration tensormap_update =
    kernel("hopper/tensormap_update",
           "a descriptor rewritten in global memory, handed to another warp's TMA load")
        .choice("variant", "fixed", {"fixed", "no_release", "no_acquire"},
                "fixed: fence.proxy.tensormap release by the writer, acquire by the issuer; "
                "no_release / no_acquire: one half left out")
        .preset("fixed", {{"variant", "fixed"}})
        .exhaustive()
        .preset("no_release", {{"variant", "no_release"}}, Verdict::race)
        .preset("no_acquire", {{"variant", "no_acquire"}}, Verdict::race)
        .body([](const Params& p) {
          const std::string variant = p.get("variant");
          grid(LaunchConfig{1, 1, {{"updater"}, {"loader"}}});
          auto old_src = global<int>("old_src", kBox, 1);
          auto new_src = global<int>("new_src", kBox, 2);
          auto desc = global_tensormap("tmap", describe_boxes(old_src, kBox, 1, 1));
          auto sA = shared<int>("sA", kBox);
          auto& full = make<Mbarrier>("full", 1);
          auto& ready = make<Atomic<int>>("ready", 0);
          const std::uint64_t next = current_grid().address_of(new_src.region());
          current_grid().launch([=, &full, &ready](const ThreadInfo& t) {
            if (t.thread == 0) {
              tensormap_replace_global_address(desc, next);
              if (variant != "no_release") fence_proxy_tensormap_release(desc);
              ready.store(1, Order::release);
              return;
            }
            await([&ready] { return ready.peek() == 1; }, {&ready}, "ld.acquire ready");
            if (variant != "no_acquire") fence_proxy_tensormap_acquire(desc);
            full.arrive_expect_tx(kBox * sizeof(int));
            tensor_load(span(View<int>(sA)), desc, 0, 0, full);
            full.wait_parity(0);
            observe("a0", std::to_string(View<int>(sA).load(0)));
          });
        });

}  // namespace
