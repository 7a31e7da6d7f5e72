// Ports of the gmem->smem tests of JAX's Mosaic GPU interpret race tests
// (seed 004, tests/pallas/gpu_pallas_interpret_race_detection_test.py) as
// heddle kernels "mosaic/<test>"; flags a..f are the commit_smem() points.
#include <array>

#include "test/gpu/mosaic_forms.hpp"

namespace {
using namespace heddle;
using namespace heddle::gpu;
using namespace heddle::gpu::pallas;
using heddle::test::mosaic::kForms;

const auto not_visible =
    kernel("mosaic/async_gmem_ops_not_visible_unless_synchronized",
           "a TMA load reads out while the thread overwrites it (no gmem commit without a wait)")
        .flag("wait_barrier", true, "wait for the load before writing out")
        .body([](const Params& p) {
          grid({});
          auto out = global<int>("out", 1);
          auto smem = shared<int>("smem", 1);
          auto bar = barrier("barrier", 1);
          bool wait = p.get_bool("wait_barrier");
          current_grid().launch([=](const ThreadInfo&) {
            copy_gmem_to_smem(out, View<int>(smem), bar);
            if (wait) barrier_wait(bar);
            commit_smem();
            out.store(0, 42);
          });
          at_exit([=] { check(out.raw() == 42, "out must be 42"); });
        });

const auto later_copy =
    kernel("mosaic/single_thread_later_gmem_to_smem_copy",
           "smem written, then overwritten by a TMA load issued by the same thread")
        .flag("a", false, "commit_smem before the write")
        .flag("b", false, "commit_smem between the write and the copy")
        .flag("c", false, "commit_smem after the copy")
        .flag("d", false, "commit_smem after the wait")
        .body([](const Params& p) {
          grid({});
          auto in = global<int>("in", 1, 42);
          auto out = global<int>("out", 1);
          auto smem = shared<int>("smem", 1);
          auto bar = barrier("barrier", 1);
          bool a = p.get_bool("a"), b = p.get_bool("b"), c = p.get_bool("c"), d = p.get_bool("d");
          current_grid().launch([=](const ThreadInfo&) {
            View<int> s = smem;
            if (a) commit_smem();
            s.store(0, 100);
            if (b) commit_smem();
            copy_gmem_to_smem(in, s, bar);
            if (c) commit_smem();
            barrier_wait(bar);
            if (d) commit_smem();
            out.store(0, s.load(0));
          });
          at_exit([=] { check(out.raw() == 42, "out must be 42"); });
        });

const auto earlier_copy =
    kernel("mosaic/single_thread_earlier_gmem_to_smem_copy",
           "a TMA load into smem, then a plain write of smem")
        .flag("wait_barrier", false, "wait for the load before the write")
        .body([](const Params& p) {
          grid({});
          auto out = global<int>("out", 1);
          auto gmem = global<int>("gmem", 1);
          auto smem = shared<int>("smem", 1);
          auto bar = barrier("barrier", 1);
          bool wait = p.get_bool("wait_barrier");
          current_grid().launch([=](const ThreadInfo&) {
            View<int> s = smem;
            copy_gmem_to_smem(gmem, s, bar);
            if (wait) barrier_wait(bar);
            s.store(0, 42);
            out.store(0, s.load(0));
          });
          at_exit([=] { check(out.raw() == 42, "out must be 42"); });
        });

// Shared by the multi-thread and cross-thread tests: the six commit points.
// The values of the commit flags a..f declared by with_commit_flags.
std::array<bool, 6> commit_flags(const Params& p) {
  std::array<bool, 6> f{};
  for (int i = 0; i < 6; ++i) f[i] = p.get_bool(std::string(1, char('a' + i)));
  return f;
}

KernelBuilder with_commit_flags(KernelBuilder k) {
  for (const char* f : {"a", "b", "c", "d", "e", "f"})
    k.flag(f, false, std::string("commit_smem at point ") + f);
  return k.choice("form", "thread", kForms, "warp-specialized (warp_map) or thread axis");
}

const auto multi_thread =
    with_commit_flags(kernel("mosaic/multi_thread_gmem_to_smem_copy",
                             "thread 0 writes smem and issues a load over it; thread 1 waits "
                             "both barriers and reads"))
        .body([](const Params& p) {
          std::string form = p.get("form");
          Grid& g = test::mosaic::two_thread_grid(form);
          auto in = global<int>("in", 1, 42);
          auto out = global<int>("out", 1);
          auto smem = shared<int>("smem", 1);
          auto thread_barrier = barrier("thread_barrier", 1);
          auto copy_barrier = barrier("copy_barrier", 1);
          const std::array<bool, 6> f = commit_flags(p);
          test::mosaic::launch_two(g, form, [=](int id) {
            View<int> s = smem;
            if (id == 0) {
              if (f[0]) commit_smem();
              s.store(0, 100);
              if (f[1]) commit_smem();
              copy_gmem_to_smem(in, s, copy_barrier);
              if (f[2]) commit_smem();
              barrier_arrive(thread_barrier);
            }
            if (id == 1) {
              if (f[3]) commit_smem();
              barrier_wait(thread_barrier);
              if (f[4]) commit_smem();
              barrier_wait(copy_barrier);
              if (f[5]) commit_smem();
              out.store(0, s.load(0));
            }
          });
          at_exit([=] { check(out.raw() == 42, "out must be 42"); });
        });

const auto cross_thread =
    with_commit_flags(kernel("mosaic/cross_thread_gmem_to_smem_copy",
                             "thread 0 writes smem; thread 1 then loads over it and reads"))
        .body([](const Params& p) {
          std::string form = p.get("form");
          Grid& g = test::mosaic::two_thread_grid(form);
          auto in = global<int>("in", 1, 42);
          auto out = global<int>("out", 1);
          auto smem = shared<int>("smem", 1);
          auto thread_barrier = barrier("thread_barrier", 1);
          auto copy_barrier = barrier("copy_barrier", 1);
          const std::array<bool, 6> f = commit_flags(p);
          test::mosaic::launch_two(g, form, [=](int id) {
            View<int> s = smem;
            if (id == 0) {
              if (f[0]) commit_smem();
              s.store(0, 100);
              if (f[1]) commit_smem();
              barrier_arrive(thread_barrier);
            }
            if (id == 1) {
              if (f[2]) commit_smem();
              barrier_wait(thread_barrier);
              if (f[3]) commit_smem();
              copy_gmem_to_smem(in, s, copy_barrier);
              if (f[4]) commit_smem();
              barrier_wait(copy_barrier);
              if (f[5]) commit_smem();
              out.store(0, s.load(0));
            }
          });
          at_exit([=] { check(out.raw() == 42, "out must be 42"); });
        });

const auto visible_if_awaited =
    kernel("mosaic/gmem_to_smem_visible_in_async_if_awaited",
           "two TMA loads into the same smem; the second after waiting the first or not")
        .flag("do_wait", false, "wait for the first load before issuing the second")
        .body([](const Params& p) {
          grid({});
          auto smem = shared<int>("smem", 2);
          auto gmem = global<int>("gmem", 2);
          bool wait = p.get_bool("do_wait");
          auto bar = barrier("barrier", wait ? 1 : 2);
          current_grid().launch([=](const ThreadInfo&) {
            View<int> s = smem;
            commit_smem();
            copy_gmem_to_smem(gmem, s, bar);
            if (wait) barrier_wait(bar);
            copy_gmem_to_smem(gmem, s, bar);
            barrier_wait(bar);
          });
        });

const auto async_load_cluster =
    kernel("mosaic/no_race_in_async_copy_gmem_to_smem_in_cluster",
           "two CTAs of a cluster each load out into their own smem")
        .body([](const Params&) {
          grid({2, 2, {{"t0"}}});
          auto out = global<int>("out", 1);
          auto smem = shared<int>("smem", 1);
          auto bar = barrier("barrier", 1);
          current_grid().launch([=](const ThreadInfo&) {
            copy_gmem_to_smem(out, View<int>(smem), bar);
            barrier_wait(bar);
          });
        });

const auto sync_load_cluster =
    kernel("mosaic/no_race_in_sync_copy_gmem_to_smem_in_cluster",
           "two CTAs of a cluster each copy in into their own smem with plain accesses")
        .body([](const Params&) {
          grid({2, 2, {{"t0"}}});
          auto in = global<int>("in", 1, 42);
          auto smem = shared<int>("smem", 1);
          current_grid().launch([=](const ThreadInfo&) {
            View<int> s = smem;
            s.store(0, in.load(0));
          });
        });

}  // namespace
