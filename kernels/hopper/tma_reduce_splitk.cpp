// hopper/tma_reduce_splitk: the epilogue of a split-K GEMM that reduces its
// partial tiles into global memory with TMA reductions (CUTLASS
// SM90_TMA_REDUCE_ADD, cp.reduce.async.bulk.tensor ... .add.tile.bulk_group).
// Each split warp (a heddle thread) writes its partial of tile t into its
// shared stage, fences the async proxy, reduces the stage into box (t, 0)
// of C, commits, and waits `wait_group.read 0` before it rewrites the
// stage; at the end it waits `wait_group 0` and meets the reader warp at a
// named barrier; the reader then loads C. Reductions of different splits
// into the same bytes do not race (each element is combined atomically).
// Variants: `reuse_early` rewrites the stage before wait_group.read (a race
// with the reduction's source read); `read_early` ends with wait_group.read
// only, so the reader races with the reductions' writes; `plain_store` has
// split 0 store its partial with st.global instead of reducing (a race with
// the other splits' reductions).
#include <fmt/format.h>

#include <algorithm>

#include "models/gpu/gpu.hpp"

namespace {
using namespace heddle;
using namespace heddle::gpu;

constexpr std::size_t kBox = 2;         // elements per tile (one TMA box)
constexpr std::uint32_t kEpiBar = 1;    // the named barrier of splits and reader
constexpr long kInit = 5;               // C before the kernel

struct Shape {
  long splits, tiles;
  ReduceOp op;
  std::string variant;
};

// Split s's partial of element i of tile t.
long partial(long s, long t, std::size_t i) { return 1 + s * 7 + t * 3 + static_cast<long>(i); }

long combine(ReduceOp op, long a, long b) {
  return op == ReduceOp::add ? a + b : op == ReduceOp::min ? std::min(a, b) : std::max(a, b);
}

// C's element i of tile t once every split has reduced into it.
long expected(const Shape& sh, long t, std::size_t i) {
  long v = kInit;
  for (long s = 0; s < sh.splits; ++s) v = combine(sh.op, v, partial(s, t, i));
  return v;
}

ReduceOp parse_op(const std::string& s) {
  return s == "min" ? ReduceOp::min : s == "max" ? ReduceOp::max : ReduceOp::add;
}

// One split warp: each tile's partial goes through its stage into C.
template <class T>
void split(const Shape& sh, long s, const View<T>& stage, const View<T>& C,
           const TensorMap& desc) {
  const bool plain = sh.variant == "plain_store" && s == 0;
  for (long t = 0; t < sh.tiles; ++t) {
    if (t > 0 && sh.variant != "reuse_early") bulk_wait_group_read(0);  // the stage is free
    for (std::size_t i = 0; i < kBox; ++i) {
      const T v = static_cast<T>(partial(s, t, i));
      if (plain) C.store(static_cast<std::size_t>(t) * kBox + i, v);  // bug: not a reduction
      else stage.store(i, v);
    }
    if (plain) continue;
    fence_proxy_async();  // the stage's generic writes, before the async-proxy read
    tensor_reduce(desc, static_cast<std::uint32_t>(t), 0, stage, sh.op);
    bulk_commit_group();
  }
  if (sh.variant == "read_early") bulk_wait_group_read(0);  // bug: writes not waited
  else bulk_wait_group(0);  // the reductions' writes happen before the barrier
}

template <class T>
void body(const Shape& sh) {
  std::vector<ThreadSpec> threads;
  for (long s = 0; s < sh.splits; ++s) threads.push_back({fmt::format("split{}", s)});
  threads.push_back({"reader"});
  grid(LaunchConfig{1, 1, threads});
  const std::size_t n = static_cast<std::size_t>(sh.tiles) * kBox;
  auto C = global<T>("C", n, static_cast<T>(kInit));
  auto desc = global_tensormap("tmap_C", describe_boxes(C, kBox, static_cast<std::uint32_t>(sh.tiles), 1));
  auto sP = shared<T>("sP", static_cast<std::size_t>(sh.splits) * kBox);
  auto out = global<T>("out", n);
  const auto all = static_cast<std::uint32_t>(sh.splits + 1);
  current_grid().launch([=](const ThreadInfo& ti) {
    View<T> stages = sP;
    if (ti.thread < sh.splits) {
      split<T>(sh, ti.thread, stages.tile(static_cast<std::size_t>(ti.thread), kBox), C, desc);
      bar_sync(kEpiBar, all);
      return;
    }
    bar_sync(kEpiBar, all);
    for (std::size_t i = 0; i < n; ++i) out.store(i, C.load(i));  // the reader's epilogue
  });
  at_exit([=] {
    for (std::size_t e = 0; e < n; ++e) {
      const long t = static_cast<long>(e / kBox), want = expected(sh, t, e % kBox);
      observe(fmt::format("out{}", e), fmt::format("{}", out.raw(e)));
      check(static_cast<long>(out.raw(e)) == want,
            fmt::format("out[{}] is {}, expected {}", e, out.raw(e), want));
    }
  });
}

const Registration tma_reduce_splitk =
    kernel("hopper/tma_reduce_splitk",
           "split-K epilogue: TMA reduce-add of each split's partial tile into global memory")
        .param("splits", 2, "k-splits (one warp each), reducing into the same tiles", 1, 3)
        .param("tiles", 2, "output tiles per split (one TMA box each)", 1, 3)
        .choice("op", "add", {"add", "min", "max"}, "the reduction operator (.add, .min, .max)")
        .choice("dtype", "int", {"int", "float"},
                "element type: int reductions commute; float adds round by order, so DPOR "
                "orders them")
        .choice("variant", "fixed", {"fixed", "reuse_early", "read_early", "plain_store"},
                "fixed: wait_group.read before a stage rewrite, wait_group before the barrier; "
                "reuse_early: the stage is rewritten before wait_group.read; read_early: "
                "wait_group.read only before the reader; plain_store: split 0 stores instead "
                "of reducing")
        .preset("fixed", {{"variant", "fixed"}})
        .exhaustive()
        .preset("reuse_early", {{"variant", "reuse_early"}}, Verdict::race)
        .preset("read_early", {{"variant", "read_early"}}, Verdict::race)
        .preset("plain_store", {{"variant", "plain_store"}}, Verdict::race)
        .body([](const Params& p) {
          Shape sh{p.get_int("splits"), p.get_int("tiles"), parse_op(p.get("op")), p.get("variant")};
          if (sh.variant == "plain_store" && sh.splits < 2)
            throw ModelError("variant plain_store needs splits >= 2 (split 0 races with another "
                             "split's reduction)");
          if (p.get("dtype") == "float") return body<float>(sh);
          body<int>(sh);
        });

}  // namespace
