// Mosaic GPU (plgpu) primitives onto models/gpu: TMA loads and stores,
// bulk async-groups, commit_smem, mbarrier arrive and wait, and axis_index
// over the grid, cluster and thread axes.
#include <fmt/format.h>

#include <optional>

#include "checker/engine/errors.hpp"
#include "models/gpu/gpu.hpp"
#include "models/gpu/pallas.hpp"
#include "models/pallas/interp.hpp"

namespace heddle::pallas {
namespace {
using nlohmann::json;

const json& tree(const Eqn& e, const char* key) {
  static const json none = json::array();
  auto it = e.params.find(key);
  return it == e.params.end() || it->is_null() ? none : *it;
}

void only_gpu(const Interp& in, const Eqn& e) {
  if (!in.context().gpu)
    throw ModelError(fmt::format("{} is a Mosaic GPU primitive in a Pallas TPU kernel", e.prim),
                     e.loc);
}

// The contiguous elements of a memory view, as a copy's source or destination.
gpu::Span span_of(Interp& in, const RefBinding& r, const Eqn& e) {
  if (r.kind != RefBinding::Kind::memory)
    throw ModelError(fmt::format("{}: {} is not memory", e.prim, r.name), e.loc);
  Region& reg = region_here(in.context(), r);
  auto [first, count] = contiguous_range(r, reg, e);
  return gpu::Span{&reg, first, count};
}

// The one mbarrier a barrier ref view names, in the caller's CTA (or thread).
gpu::Mbarrier& one_barrier(Interp& in, const RefBinding& r, const Eqn& e) {
  if (r.kind != RefBinding::Kind::barrier)
    throw ModelError(fmt::format("{}: {} is not a plgpu.Barrier", e.prim, r.name), e.loc);
  auto elems = r.elements();
  if (elems.size() != 1)
    throw ModelError(fmt::format("{}: {} must name one barrier (index it with .at[i])", e.prim,
                                 r.name), e.loc);
  const auto& c = in.context();
  const std::int64_t threads = c.program->gpu_mesh.num_threads;
  const std::int64_t instance = r.per_thread ? c.core * threads + c.thread : c.core;
  return *r.bars.at(static_cast<std::size_t>(instance * r.per_instance + elems[0]));
}

RefBinding view(Interp& in, const Slot& s, const Eqn& e, const char* key) {
  return apply_indexers(in, as_ref(s, e), tree(e, key), e);
}

// plgpu.copy_gmem_to_smem: Mosaic GPU's lowering arrives on the barrier with
// expect_tx of the copy's bytes, then issues the TMA load that completes them
// (cp.async.bulk...mbarrier::complete_tx, PTX ISA §9.7.9.25). Multicast
// (collective_axes) is refused at load (program.cpp).
std::vector<Slot> copy_gmem_to_smem(Interp& in, const Eqn& e, std::vector<Slot>& a) {
  only_gpu(in, e);
  gpu::Span src = span_of(in, view(in, a.at(0), e, "src_transforms_treedef"), e);
  gpu::Span dst = span_of(in, view(in, a.at(1), e, "dst_transforms_treedef"), e);
  gpu::Mbarrier& bar = one_barrier(in, view(in, a.at(2), e, "barrier_transforms_treedef"), e);
  if (src.bytes() != dst.bytes())
    throw ModelError(fmt::format("copy_gmem_to_smem: {} bytes into {}", src.bytes(), dst.bytes()),
                     e.loc);
  gpu::pallas::copy_gmem_to_smem(src, dst, bar, e.loc);
  return {};
}

// plgpu.copy_smem_to_gmem: a TMA store in this thread's bulk async-group,
// committed when commit_group (cp.async.bulk...bulk_group, PTX ISA §9.7.9.25).
// A reduction_op is refused at load (program.cpp).
std::vector<Slot> copy_smem_to_gmem(Interp& in, const Eqn& e, std::vector<Slot>& a) {
  only_gpu(in, e);
  if (e.params.value("has_user_predicate", false) && as_value(a.back(), e).item() == 0) return {};
  gpu::Span src = span_of(in, view(in, a.at(0), e, "src_transforms_treedef"), e);
  gpu::Span dst = span_of(in, view(in, a.at(1), e, "dst_transforms_treedef"), e);
  if (src.bytes() != dst.bytes())
    throw ModelError(fmt::format("copy_smem_to_gmem: {} bytes into {}", src.bytes(), dst.bytes()),
                     e.loc);
  gpu::pallas::copy_smem_to_gmem(src, dst, e.params.value("commit_group", true), e.loc);
  return {};
}

// plgpu.wait_smem_to_gmem(n, wait_read_only): cp.async.bulk.wait_group(.read) n.
std::vector<Slot> wait_smem_to_gmem(Interp& in, const Eqn& e, std::vector<Slot>& a) {
  only_gpu(in, e);
  auto n = static_cast<std::uint32_t>(as_value(a.at(0), e).index());
  gpu::pallas::wait_smem_to_gmem(n, e.params.value("wait_read_only", false), e.loc);
  return {};
}

// plgpu.barrier_wait: the next phase this thread has not observed.
std::vector<Slot> barrier_wait(Interp& in, const Eqn& e, std::vector<Slot>& a) {
  only_gpu(in, e);
  gpu::pallas::barrier_wait(one_barrier(in, view(in, a.at(0), e, "transforms_treedef"), e), e.loc);
  return {};
}

// pl.core_map(plgpu.WarpMesh(axis_name)) inside a Pallas thread (other
// meshes are refused at load, program.cpp): the body runs in the four warps
// of the warpgroup, as models/gpu/pallas.hpp's warp_map runs them; code
// after it in the caller is not ordered after the warps.
std::vector<Slot> warp_core_map(Interp& in, const Eqn& e, std::vector<Slot>& a) {
  only_gpu(in, e);
  const Jaxpr* body = &e.sub("jaxpr");
  ThreadContext ctx = in.context();
  ctx.warp_axis = e.params.at("mesh").at("axis_name").get<std::string>();
  gpu::pallas::warp_map(
      [ctx, body, a](int w) {
        ThreadContext mine = ctx;
        mine.warp = w;
        Interp warp(mine);
        warp.eval(*body, a);
      },
      e.loc);
  return {};
}

const bool prims_gpu_registered = [] {
  register_primitive("core_map", warp_core_map);
  register_primitive("copy_gmem_to_smem", copy_gmem_to_smem);
  register_primitive("copy_smem_to_gmem", copy_smem_to_gmem);
  register_primitive("wait_smem_to_gmem", wait_smem_to_gmem);
  register_primitive("barrier_wait", barrier_wait);
  register_primitive("barrier_arrive", [](Interp& in, const Eqn& e, std::vector<Slot>& a) {
    only_gpu(in, e);
    one_barrier(in, view(in, a.at(0), e, "transforms_treedef"), e).arrive(e.loc);
    return std::vector<Slot>{};
  });
  register_primitive("commit_group", [](Interp& in, const Eqn& e, std::vector<Slot>&) {
    only_gpu(in, e);
    gpu::bulk_commit_group();  // cp.async.bulk.commit_group
    return std::vector<Slot>{};
  });
  register_primitive("commit_smem", [](Interp& in, const Eqn& e, std::vector<Slot>&) {
    only_gpu(in, e);
    gpu::pallas::commit_smem(e.loc);  // fence.proxy.async (PTX ISA §9.7.13.4)
    return std::vector<Slot>{};
  });
  return true;
}();

// The coordinate of `c` along one named axis, and that axis's size.
std::pair<std::int64_t, std::int64_t> coordinate(const ThreadContext& c, const std::string& name,
                                                 const Eqn& e) {
  const GpuMesh& m = c.program->gpu_mesh;
  if (name == m.thread_name) return {c.thread, m.num_threads};
  if (!c.warp_axis.empty() && name == c.warp_axis) return {c.warp, 4};
  const std::int64_t cluster_size = m.cluster_ctas();
  auto pick = [&](const std::vector<std::string>& names, const std::vector<std::int64_t>& dims,
                  std::int64_t flat) -> std::optional<std::pair<std::int64_t, std::int64_t>> {
    for (std::size_t k = dims.size(); k-- > 0;) {  // row-major: the last dimension fastest
      if (names[k] == name) return std::pair{flat % dims[k], dims[k]};
      flat /= dims[k];
    }
    return std::nullopt;
  };
  if (auto r = pick(m.cluster_names, m.cluster, c.core % cluster_size)) return *r;
  if (auto r = pick(m.grid_names, m.grid, c.core / cluster_size)) return *r;
  throw ModelError(fmt::format("axis_index: no grid, cluster or thread axis named {}", name), e.loc);
}
}  // namespace

std::int64_t gpu_axis_index(const ThreadContext& c, const json& names, const Eqn& e) {
  std::vector<std::string> want;
  if (names.is_array()) {
    for (const auto& n : names) want.push_back(n.get<std::string>());
  } else {
    want.push_back(names.get<std::string>());
  }
  std::int64_t index = 0;
  for (const auto& name : want) {
    auto [x, size] = coordinate(c, name, e);
    index = index * size + x;
  }
  return index;
}

}  // namespace heddle::pallas
