// Ports of the smem->gmem, barrier and cluster tests of JAX's Mosaic GPU
// interpret race tests (seed 004) as heddle kernels "mosaic/<test>".
#include "test/gpu/mosaic_forms.hpp"

namespace {
using namespace heddle;
using namespace heddle::gpu;
using namespace heddle::gpu::pallas;
using heddle::test::mosaic::kForms;

const auto single_store =
    kernel("mosaic/single_thread_smem_to_gmem_copy",
           "smem written, stored to gmem with a TMA store, waited, read back")
        .flag("a", false, "commit_smem before the write")
        .flag("b", false, "commit_smem between the write and the copy")
        .flag("c", false, "commit_smem after the copy")
        .body([](const Params& p) {
          grid({});
          auto out = global<int>("out", 1);
          auto gmem = global<int>("gmem", 1);
          auto smem = shared<int>("smem", 1);
          bool a = p.get_bool("a"), b = p.get_bool("b"), c = p.get_bool("c");
          current_grid().launch([=](const ThreadInfo&) {
            View<int> s = smem;
            if (a) commit_smem();
            s.store(0, 42);
            if (b) commit_smem();
            copy_smem_to_gmem(s, gmem);
            if (c) commit_smem();
            wait_smem_to_gmem(0);
            out.store(0, gmem.load(0));
          });
          at_exit([=] { check(out.raw() == 42, "out must be 42"); });
        });

const auto non_fully_waited =
    kernel("mosaic/non_fully_waited_smem_to_gmem_copy",
           "two TMA stores, wait(1), then both destinations are read")
        .body([](const Params&) {
          grid({});
          auto out = global<int>("out", 1);
          auto smem1 = shared<int>("smem1", 1), smem2 = shared<int>("smem2", 1);
          auto gmem1 = global<int>("gmem1", 1), gmem2 = global<int>("gmem2", 1);
          current_grid().launch([=](const ThreadInfo&) {
            View<int> s1 = smem1, s2 = smem2;
            s1.store(0, 1);
            s2.store(0, 2);
            commit_smem();
            copy_smem_to_gmem(s1, gmem1);
            copy_smem_to_gmem(s2, gmem2);
            wait_smem_to_gmem(1);
            out.store(0, gmem1.load(0) + gmem2.load(0));
            wait_smem_to_gmem(0);
          });
        });

const auto rewaiting =
    kernel("mosaic/allows_rewaiting_smem_to_gmem_copies",
           "three TMA stores of one element each, waited 1, 2, then 0")
        .body([](const Params&) {
          grid({});
          auto in = global<int>("in", 3);
          for (int i = 0; i < 3; ++i) in.init(i, i + 1);
          auto out = global<int>("out", 1);
          auto smem = shared<int>("smem", 3);
          auto gmem = global<int>("gmem", 3);
          current_grid().launch([=](const ThreadInfo&) {
            View<int> s = smem;
            for (int i = 0; i < 3; ++i) s.store(i, in.load(i));
            commit_smem();
            for (int i = 0; i < 3; ++i) copy_smem_to_gmem(s.at(i), gmem.at(i));
            wait_smem_to_gmem(1);
            wait_smem_to_gmem(2);
            out.store(0, gmem.load(0) + gmem.load(1));
            wait_smem_to_gmem(0);
            out.store(0, gmem.load(0) + gmem.load(1) + gmem.load(2));
          });
          at_exit([=] { check(out.raw() == 6, "out must be 1+2+3"); });
        });

const auto read_only =
    kernel("mosaic/smem_to_gmem_copy_waits_read_only",
           "two TMA stores, wait(1, read only), then a write to one of four locations")
        .flag("wait_only_once", false, "skip the full wait(1) after the read-only one")
        .param("check_location", 0, "0: smem[0], 1: out[0], 2: smem[1], 3: out[1]", 0, 3)
        .body([](const Params& p) {
          grid({});
          auto in = global<int>("in", 2);
          in.init(0, 1);
          in.init(1, 2);
          auto out = global<int>("out", 2);
          auto smem = shared<int>("smem", 2);
          bool once = p.get_bool("wait_only_once");
          long loc = p.get_int("check_location");
          current_grid().launch([=](const ThreadInfo&) {
            View<int> s = smem;
            for (int i = 0; i < 2; ++i) s.store(i, in.load(i));
            commit_smem();
            copy_smem_to_gmem(s.at(0), out.at(0));
            copy_smem_to_gmem(s.at(1), out.at(1));
            View<int> targets[4] = {s.at(0), out.at(0), s.at(1), out.at(1)};
            wait_smem_to_gmem(1, true);
            if (!once) wait_smem_to_gmem(1);
            targets[loc].store(0, 3);
            wait_smem_to_gmem(0, true);
          });
        });

const auto isolated =
    kernel("mosaic/wait_smem_to_gmem_isolated_per_thread",
           "thread 1's wait_smem_to_gmem does not wait thread 0's TMA store")
        .choice("form", "thread", kForms, "warp-specialized (warp_map) or thread axis")
        .flag("check_read", false, "thread 1 writes smem (true) or out (false)")
        .body([](const Params& p) {
          std::string form = p.get("form");
          Grid& g = test::mosaic::two_thread_grid(form);
          auto out = global<int>("out", 1);
          auto smem = shared<int>("smem", 1);
          auto bar = barrier("barrier", 1), cleanup = barrier("cleanup_barrier", 1);
          bool check_read = p.get_bool("check_read");
          test::mosaic::launch_two(g, form, [=](int id) {
            View<int> s = smem;
            if (id == 0) {
              copy_smem_to_gmem(s, out);
              barrier_arrive(bar);
              barrier_wait(cleanup);
              wait_smem_to_gmem(0);
            }
            if (id == 1) {
              barrier_wait(bar);
              wait_smem_to_gmem(0);
              if (check_read)
                s.store(0, 43);
              else
                out.store(0, 43);
              barrier_arrive(cleanup);
            }
          });
        });

const auto properly_waited =
    kernel("mosaic/properly_waited_smem_to_gmem_visible_across_threads",
           "thread 0 stores and fully waits, then signals thread 1, which reads gmem")
        .choice("form", "thread", kForms, "warp-specialized (warp_map) or thread axis")
        .body([](const Params& p) {
          std::string form = p.get("form");
          Grid& g = test::mosaic::two_thread_grid(form);
          auto out = global<int>("out", 1);
          auto smem = shared<int>("smem", 1);
          auto gmem = global<int>("gmem", 1);
          auto bar = barrier("barrier", 1);
          test::mosaic::launch_two(g, form, [=](int id) {
            View<int> s = smem;
            if (id == 0) {
              s.store(0, 42);
              commit_smem();
              copy_smem_to_gmem(s, gmem);
              wait_smem_to_gmem(0);
              barrier_arrive(bar);
            }
            if (id == 1) {
              barrier_wait(bar);
              out.store(0, gmem.load(0));
            }
          });
          at_exit([=] { check(out.raw() == 42, "out must be 42"); });
        });

const auto double_store =
    kernel("mosaic/race_in_double_smem_to_gmem", "two in-flight TMA stores write the same gmem")
        .body([](const Params&) {
          grid({});
          auto smem = shared<int>("smem", 2);
          auto gmem = global<int>("gmem", 2);
          current_grid().launch([=](const ThreadInfo&) {
            View<int> s = smem;
            commit_smem();
            copy_smem_to_gmem(s, gmem);
            copy_smem_to_gmem(s, gmem);
            wait_smem_to_gmem(0);
          });
        });

const auto unawaited =
    kernel("mosaic/exception_in_unawaited_smem_to_gmem",
           "a thread exits with a TMA store it never waited")
        .flag("wait_read_only", false, "wait the read side before exiting")
        .body([](const Params& p) {
          grid({});
          auto out = global<int>("out", 2);
          auto smem = shared<int>("smem", 2);
          bool wait = p.get_bool("wait_read_only");
          current_grid().launch([=](const ThreadInfo&) {
            copy_smem_to_gmem(View<int>(smem), out);
            if (wait) wait_smem_to_gmem(0, true);
          });
        });

const auto async_store_cluster =
    kernel("mosaic/race_in_async_copy_smem_to_gmem_in_cluster",
           "two CTAs of a cluster TMA-store into the same out")
        .body([](const Params&) {
          grid({2, 2, {{"t0"}}});
          auto out = global<int>("out", 1);
          auto smem = shared<int>("smem", 1);
          current_grid().launch([=](const ThreadInfo&) {
            copy_smem_to_gmem(View<int>(smem), out);
            wait_smem_to_gmem(0);
          });
        });

const auto sync_store_cluster =
    kernel("mosaic/race_in_sync_copy_smem_to_gmem_in_cluster",
           "two CTAs of a cluster write out with plain stores")
        .body([](const Params&) {
          grid({2, 2, {{"t0"}}});
          auto out = global<int>("out", 1);
          auto smem = shared<int>("smem", 1);
          current_grid().launch([=](const ThreadInfo&) {
            View<int> s = smem;
            out.store(0, s.load(0));
          });
        });

const auto smem_across =
    kernel("mosaic/no_race_in_smem_across_clusters",
           "thread 0 of CTA 0 and thread 1 of CTA 1 write their own CTA's smem")
        .body([](const Params&) {
          grid({2, 2, {{"t0"}, {"t1"}}});
          auto smem = shared<int>("smem", 1);
          current_grid().launch([=](const ThreadInfo& t) {
            View<int> s = smem;
            if (t.rank == 0 && t.thread == 0) s.store(0, 42);
            if (t.rank == 1 && t.thread == 1) s.store(0, 43);
          });
        });

const auto arrive_and_wait =
    kernel("mosaic/barrier_arrive_and_wait",
           "thread 0 writes smem and arrives; thread 1 arrives (and waits) then reads")
        .choice("form", "thread", kForms, "warp-specialized (warp_map) or thread axis")
        .flag("wait", false, "thread 1 uses barrier_arrive_and_wait")
        .body([](const Params& p) {
          std::string form = p.get("form");
          Grid& g = test::mosaic::two_thread_grid(form);
          auto out = global<int>("out", 1);
          auto smem = shared<int>("smem", 1);
          auto bar = barrier("barrier", 2);
          bool wait = p.get_bool("wait");
          test::mosaic::launch_two(g, form, [=](int id) {
            View<int> s = smem;
            if (id == 0) {
              s.store(0, 42);
              barrier_arrive(bar);
            }
            if (id == 1) {
              if (wait)
                barrier_arrive_and_wait(bar);
              else
                barrier_arrive(bar);
              out.store(0, s.load(0));
            }
          });
          if (wait) at_exit([=] { check(out.raw() == 42, "out must be 42"); });
        });

}  // namespace
