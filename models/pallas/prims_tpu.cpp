// Pallas TPU primitives onto models/tpu: program_id, num_programs,
// axis_index, dma_start / dma_wait (local and remote), semaphore signal,
// wait and read (regular, DMA, barrier), get_barrier_semaphore, run_scoped.
#include <fmt/format.h>

#include "checker/engine/errors.hpp"
#include "models/pallas/interp.hpp"

namespace heddle::pallas {
namespace {
using nlohmann::json;

Value i32(std::int64_t x) { return Value::scalar(DType::i32, static_cast<double>(x)); }

std::size_t grid_axis(const Eqn& e, std::size_t rank) {
  auto axis = integer_or(e.params, "axis", 0);
  if (axis < 0 || static_cast<std::size_t>(axis) >= rank)
    throw ModelError(fmt::format("{}: axis {} of a grid of rank {}", e.prim, axis, rank), e.loc);
  return static_cast<std::size_t>(axis);
}

// Coordinate of this device along the mesh axes `names` (one or several).
std::int64_t axis_index(const Program& p, std::uint32_t device, const json& names, const Eqn& e) {
  std::vector<std::string> want;
  if (names.is_array()) {
    for (const auto& n : names) want.push_back(n.get<std::string>());
  } else {
    want.push_back(names.get<std::string>());
  }
  auto coords = tpu::Mesh::current().coords_of(device);
  std::int64_t index = 0;
  for (const auto& name : want) {
    std::size_t k = 0;
    while (k < p.mesh_axes.size() && p.mesh_axes[k].first != name) ++k;
    if (k == p.mesh_axes.size())
      throw ModelError(fmt::format("axis_index: no mesh axis named {}", name), e.loc);
    index = index * p.mesh_axes[k].second + coords[k];
  }
  return index;
}

// The logical device id of a device_id parameter (MESH coordinates or LOGICAL).
std::uint32_t device_of(Interp& in, const json& id, const Eqn& e) {
  auto& mesh = tpu::Mesh::current();
  std::vector<std::uint32_t> coords;
  if (id.is_array()) {
    for (const auto& a : id)
      coords.push_back(static_cast<std::uint32_t>(as_value(in.param_atom(a, e), e).index()));
  } else {
    coords.push_back(static_cast<std::uint32_t>(as_value(in.param_atom(id, e), e).index()));
  }
  if (e.params.value("device_id_type", "MESH") == "LOGICAL" || mesh.config().shape.size() <= 1) {
    if (coords.size() != 1)
      throw ModelError("device_id: a logical id is one number", e.loc);
    if (coords[0] >= mesh.devices())
      throw ModelError(fmt::format("device_id {} but the mesh has {} devices", coords[0],
                                   mesh.devices()), e.loc);
    return coords[0];
  }
  return mesh.device_at(coords);
}

tpu::Sem one_sem(Interp& in, const json& ref, const json& transforms, const Eqn& e) {
  RefBinding r = apply_indexers(in, as_ref(in.param_atom(ref, e), e), transforms, e);
  if (r.kind != RefBinding::Kind::semaphore || !r.dims.empty())
    throw ModelError(fmt::format("{}: {} must name one semaphore", e.prim, r.name), e.loc);
  return r.sems.at(static_cast<std::size_t>(r.offset));
}

// The (strided) range a DMA moves, on (device, core).
tpu::Place place_of(const RefBinding& r, std::uint32_t device, std::uint32_t core, const Eqn& e) {
  if (r.kind != RefBinding::Kind::memory)
    throw ModelError(fmt::format("{}: {} is a semaphore, not memory", e.prim, r.name), e.loc);
  return strided_place(r, region_of(*r.alloc, device, core), e);
}

// Marks the DMAs whose signals a wait of `value` bytes on `sem` consumed
// as waited (for the exit check that every DMA is waited): the oldest ones
// whose signal on `sem` has happened and was not yet waited, until their
// bytes cover `value`. Only DMA signals put bytes there, so they exist.
void mark_waited(tpu::TpuSemaphore& sem, std::uint64_t value) {
  std::uint64_t covered = 0;
  for (const auto& r : tpu::Mesh::current().dmas()) {
    if (covered >= value) return;
    if (r->received && r->recv_sem == &sem && !r->recv_waited) {
      r->recv_waited = true;
      covered += r->bytes;
    } else if (r->sent && r->send_sem == &sem && !r->send_waited) {
      r->send_waited = true;
      covered += r->bytes;
    }
  }
}

struct DmaArgs {
  RefBinding src, dst;
  json dst_sem, dst_sem_t, src_sem, src_sem_t, device_id;
};

DmaArgs dma_args(Interp& in, const Eqn& e) {
  const json& t = e.params.at("tree");
  DmaArgs a;
  a.src = apply_indexers(in, as_ref(in.param_atom(t.at(0), e), e), t.at(1), e);
  a.dst = apply_indexers(in, as_ref(in.param_atom(t.at(2), e), e), t.at(3), e);
  a.dst_sem = t.at(4);
  a.dst_sem_t = t.at(5);
  a.src_sem = t.at(6);
  a.src_sem_t = t.at(7);
  a.device_id = t.at(8);
  return a;
}

std::vector<Slot> dma_start(Interp& in, const Eqn& e, std::vector<Slot>&) {
  if (e.params.value("add", false))
    throw ModelError("dma_start with add=True is not supported", e.loc);
  DmaArgs a = dma_args(in, e);
  const auto& c = in.context();
  tpu::Place src = place_of(a.src, c.device, c.core, e);
  tpu::Sem dst_sem = one_sem(in, a.dst_sem, a.dst_sem_t, e);
  if (a.device_id.is_null()) {
    tpu::make_copy(src, place_of(a.dst, c.device, c.core, e), dst_sem, e.loc).start(e.loc);
    return {};
  }
  std::uint32_t target = device_of(in, a.device_id, e);
  tpu::Sem src_sem = one_sem(in, a.src_sem, a.src_sem_t, e);
  tpu::make_remote_copy(src, place_of(a.dst, target, c.core, e), src_sem, dst_sem, target, e.loc)
      .start(e.loc);
  return {};
}

// A wait on the DMA semaphore `dst_sem` of this core for the bytes of `dst`:
// Pallas's .wait_recv() and local .wait(), and .wait_send(), which Pallas
// writes as a dma_wait on the send semaphore with src and dst swapped. All
// are the same wait on a byte count; which DMA it consumed is found after.
std::vector<Slot> dma_wait(Interp& in, const Eqn& e, std::vector<Slot>&) {
  DmaArgs a = dma_args(in, e);
  const auto& c = in.context();
  tpu::Place dst = place_of(a.dst, c.device, c.core, e);
  tpu::TpuSemaphore& sem = one_sem(in, a.dst_sem, a.dst_sem_t, e).here(e.loc);
  const auto bytes = static_cast<std::uint32_t>(dst.count * dst.region->elem_size());
  sem.wait(bytes, "dma_wait", e.loc);
  mark_waited(sem, bytes);
  return {};
}

std::vector<Slot> semaphore_signal(Interp& in, const Eqn& e, std::vector<Slot>&) {
  const json& t = e.params.at("args_tree");
  tpu::Sem sem = one_sem(in, t.at(0), t.at(1), e);
  auto inc = static_cast<std::uint32_t>(as_value(in.param_atom(t.at(2), e), e).index());
  std::optional<std::uint32_t> device, core;
  if (!t.at(3).is_null()) device = device_of(in, t.at(3), e);
  if (!t.at(4).is_null())
    core = static_cast<std::uint32_t>(as_value(in.param_atom(t.at(4), e), e).index());
  tpu::semaphore_signal(sem, inc, device, core, e.loc);
  return {};
}

std::vector<Slot> semaphore_wait(Interp& in, const Eqn& e, std::vector<Slot>&) {
  const json& t = e.params.at("args_tree");
  tpu::Sem sem = one_sem(in, t.at(0), t.at(1), e);
  auto value = static_cast<std::uint32_t>(as_value(in.param_atom(t.at(2), e), e).index());
  if (t.size() > 3 && t.at(3).is_boolean() && !t.at(3).get<bool>())
    throw ModelError("semaphore_wait(decrement=False) is not supported", e.loc);
  tpu::semaphore_wait(sem, value, e.loc);
  return {};
}

std::vector<Slot> semaphore_read(Interp& in, const Eqn& e, std::vector<Slot>&) {
  const json& t = e.params.at("args_tree");
  tpu::Sem sem = one_sem(in, t.at(0), t.at(1), e);
  return {i32(tpu::semaphore_read(sem, e.loc))};
}

std::vector<Slot> barrier_semaphore(Interp&, const Eqn&, std::vector<Slot>&) {
  RefBinding r;
  r.kind = RefBinding::Kind::semaphore;
  r.sems = {tpu::get_barrier_semaphore()};
  r.name = "barrier_semaphore";
  return {r};
}

std::vector<Slot> run_scoped(Interp& in, const Eqn& e, std::vector<Slot>& a) {
  const auto& scoped = in.context().scoped->at(&e);
  std::vector<Slot> args(a.begin(), a.end());
  for (const auto& r : scoped) args.emplace_back(r);
  return in.eval(e.sub("jaxpr"), args);
}

const bool prims_tpu_registered = [] {
  register_primitive("program_id", [](Interp& in, const Eqn& e, std::vector<Slot>&) {
    const auto& ids = in.context().program_ids;
    return std::vector<Slot>{i32(ids.at(grid_axis(e, ids.size())))};
  });
  register_primitive("num_programs", [](Interp& in, const Eqn& e, std::vector<Slot>&) {
    const auto& grid = in.context().program->grid;
    return std::vector<Slot>{i32(grid.at(grid_axis(e, grid.size())))};
  });
  register_primitive("axis_index", [](Interp& in, const Eqn& e, std::vector<Slot>&) {
    const auto& c = in.context();
    if (c.gpu) return std::vector<Slot>{i32(gpu_axis_index(c, e.params.at("axis_name"), e))};
    return std::vector<Slot>{i32(axis_index(*c.program, c.device, e.params.at("axis_name"), e))};
  });
  register_primitive("dma_start", dma_start);
  register_primitive("dma_wait", dma_wait);
  register_primitive("semaphore_signal", semaphore_signal);
  register_primitive("semaphore_wait", semaphore_wait);
  register_primitive("semaphore_read", semaphore_read);
  register_primitive("get_barrier_semaphore", barrier_semaphore);
  register_primitive("run_scoped", run_scoped);
  return true;
}();
}  // namespace
}  // namespace heddle::pallas
