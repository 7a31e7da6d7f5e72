// hopper/tma_multicast: a cluster mainloop whose A tiles are multicast
// (CUTLASS SM90_TMA_LOAD_MULTICAST, PipelineTmaAsync with a cluster shape).
// Rank 0's producer loads tile k once with .multicast::cluster into stage
// k%S of every CTA; each CTA's producer arms its own full[s] with
// arrive.expect_tx of the bytes that land there; each CTA's consumer waits
// full[s], reads the stage as a wgmma operand and releases it by arriving on empty[s] of every
// CTA of the cluster (mbarrier.arrive.shared::cluster through mapa), so a
// producer reuses a stage only once every consumer that reads it is done.
// Variants: `unarmed` (rank 1's producer arrives on full[s] without
// expect_tx: its phase can complete before the multicast lands, an
// async_error); `local_release` (empty[s] counts only the CTA's own
// consumer, which arrives only there: rank 0 multicasts the next tile into
// rank 1's stage before rank 1 is done with the last one; heddle finds it
// as the next tile's bytes in flight when rank 1's full[s] completes the
// current phase, an async_error, or in other orders as a race with the read).
#include <fmt/format.h>

#include "models/gpu/gpu.hpp"

namespace {
using namespace heddle;
using namespace heddle::gpu;

constexpr std::size_t kBox = 2;  // ints per tile (one TMA box)

struct Shape {
  long ctas, stages, k_tiles;
  std::string variant;
};

int a_value(long k, std::size_t i) { return static_cast<int>(1 + k * 10 + static_cast<long>(i)); }

struct Stage {
  PerCta<Mbarrier*> full, empty;
};

void producer(const Shape& sh, const ThreadInfo& t, const std::vector<Stage>& st,
              const Shared<int>& sA, const TensorMap& desc) {
  const auto all = static_cast<std::uint16_t>((1u << sh.ctas) - 1);
  for (long k = 0; k < sh.k_tiles; ++k) {
    const auto s = static_cast<std::size_t>(k % sh.stages);
    const auto parity = static_cast<std::uint32_t>((k / sh.stages) & 1);
    if (k >= sh.stages) st[s].empty.local()->wait_parity(parity ^ 1u);  // producer_acquire
    if (sh.variant == "unarmed" && t.rank == 1) st[s].full.local()->arrive();  // bug: no bytes
    else st[s].full.local()->arrive_expect_tx(kBox * sizeof(int));
    if (t.rank == 0)
      tensor_load_multicast(sA, s * kBox, kBox, desc, static_cast<std::uint32_t>(k), 0, st[s].full,
                            all);
  }
}

void consumer(const Shape& sh, const ThreadInfo& t, const std::vector<Stage>& st,
              const Shared<int>& sA, const View<int>& out) {
  View<int> a = sA;
  for (long k = 0; k < sh.k_tiles; ++k) {
    const auto s = static_cast<std::size_t>(k % sh.stages);
    st[s].full.local()->wait_parity(static_cast<std::uint32_t>((k / sh.stages) & 1));
    int sum = 0;
    for (std::size_t i = 0; i < kBox; ++i) sum += wgmma_read(a, s * kBox + i);  // the mma's A
    out.store(static_cast<std::size_t>(t.cta * sh.k_tiles + k), sum);
    if (sh.variant == "local_release") {
      st[s].empty.local()->arrive();  // bug: rank 0 also writes this stage
      continue;
    }
    for (int r = 0; r < sh.ctas; ++r) st[s].empty.peer(r)->arrive();  // remote arrive via mapa
  }
}

void body(const Shape& sh) {
  const int ctas = static_cast<int>(sh.ctas);
  grid(LaunchConfig{ctas, ctas, {{"producer"}, {"consumer"}}});
  auto A = global<int>("A", static_cast<std::size_t>(sh.k_tiles) * kBox);
  for (long k = 0; k < sh.k_tiles; ++k)
    for (std::size_t i = 0; i < kBox; ++i) A.init(k * kBox + i, a_value(k, i));
  auto desc = global_tensormap("tmap_A", describe_boxes(A, kBox, static_cast<std::uint32_t>(sh.k_tiles), 1));
  auto sA = shared<int>("sA", static_cast<std::size_t>(sh.stages) * kBox);
  auto out = global<int>("out", static_cast<std::size_t>(sh.ctas * sh.k_tiles));
  // empty[s] gathers one arrival per consumer that reads the stage: every CTA's.
  const auto readers = static_cast<std::uint32_t>(sh.variant == "local_release" ? 1 : ctas);
  std::vector<Stage> st;
  for (long s = 0; s < sh.stages; ++s)
    st.push_back({per_cta<Mbarrier>(fmt::format("full[{}]", s), std::uint32_t{1}),
                  per_cta<Mbarrier>(fmt::format("empty[{}]", s), readers)});
  current_grid().launch([=](const ThreadInfo& t) {
    if (t.thread == 0) producer(sh, t, st, sA, desc);
    else consumer(sh, t, st, sA, out);
  });
  at_exit([=] {
    for (long c = 0; c < sh.ctas; ++c)
      for (long k = 0; k < sh.k_tiles; ++k) {
        const int got = out.raw(static_cast<std::size_t>(c * sh.k_tiles + k));
        const int want = a_value(k, 0) + a_value(k, 1);
        observe(fmt::format("cta{}.sum{}", c, k), std::to_string(got));
        check(got == want, fmt::format("CTA {} summed tile {} to {}, expected {}", c, k, got, want));
      }
  });
}

const Registration tma_multicast =
    kernel("hopper/tma_multicast",
           "cluster mainloop: rank 0 multicasts each A tile to every CTA's stage")
        .param("ctas", 2, "CTAs in the cluster (all receive every multicast)", 2, 3)
        .param("stages", 1, "shared-memory stages S", 1, 2)
        .param("k_tiles", 2, "k-tiles", 1, 3)
        .choice("variant", "fixed", {"fixed", "unarmed", "local_release"},
                "fixed: every CTA arms its full[s] and releases every CTA's empty[s]; unarmed: "
                "rank 1 arrives on full[s] without expect_tx; local_release: consumers release "
                "only their own CTA's empty[s]")
        .preset("fixed", {{"variant", "fixed"}})
        .exhaustive()
        .preset("unarmed", {{"variant", "unarmed"}}, Verdict::async_error)
        .preset("local_release", {{"variant", "local_release"}}, Verdict::async_error)
        .body([](const Params& p) {
          Shape sh{p.get_int("ctas"), p.get_int("stages"), p.get_int("k_tiles"), p.get("variant")};
          if (sh.variant == "local_release" && sh.k_tiles <= sh.stages)
            throw ModelError("variant local_release needs k_tiles > stages (a stage must be "
                             "reused for the early overwrite to exist)");
          body(sh);
        });

}  // namespace
