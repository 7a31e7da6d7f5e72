// Pallas TPU primitives onto models/tpu: program_id, num_programs,
// axis_index, dma_start / dma_wait (local and remote), semaphore signal,
// wait and read (regular, DMA, barrier), get_barrier_semaphore, run_scoped.
#include <fmt/format.h>

#include <algorithm>

#include "checker/engine/bug.hpp"
#include "checker/engine/errors.hpp"
#include "checker/engine/execution.hpp"
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
  std::string out_of_bounds;  // what of the descriptor lies outside its refs ("" if nothing)
};

DmaArgs dma_args(Interp& in, const Eqn& e) {
  const json& t = e.params.at("tree");
  DmaArgs a;
  a.src = apply_indexers(in, as_ref(in.param_atom(t.at(0), e), e), t.at(1), e, &a.out_of_bounds);
  a.dst = apply_indexers(in, as_ref(in.param_atom(t.at(2), e), e), t.at(3), e, &a.out_of_bounds);
  a.dst_sem = t.at(4);
  a.dst_sem_t = t.at(5);
  a.src_sem = t.at(6);
  a.src_sem_t = t.at(7);
  a.device_id = t.at(8);
  return a;
}

// The source and destination a DMA descriptor moves, on this core and on
// `dst_device`. A slice past its ref was cut to it (dma_args); a source and
// destination of different sizes move the smaller count, when both are
// contiguous. Either is an out-of-bounds descriptor, said in a.out_of_bounds.
std::pair<tpu::Place, tpu::Place> dma_places(Interp& in, DmaArgs& a, std::uint32_t dst_device,
                                             const Eqn& e) {
  const auto& c = in.context();
  tpu::Place src = place_of(a.src, c.device, c.core, e);
  tpu::Place dst = place_of(a.dst, dst_device, c.core, e);
  if (src.count != dst.count && src.runs() == 1 && dst.runs() == 1) {
    a.out_of_bounds += fmt::format("{}{} elements of {} copied into {} elements of {}",
                                   a.out_of_bounds.empty() ? "" : "; ", src.count, a.src.name,
                                   dst.count, a.dst.name);
    src.count = dst.count = std::min(src.count, dst.count);
  }
  return {src, dst};
}

// An out-of-bounds DMA descriptor is a bug of the kernel (Mosaic would move
// memory past the ref): reported as such, naming the refs, the slices and
// the bounds, as the execution's bug. With --param out_of_bounds=clip it is
// a note instead and the copy of its in-bounds part goes on, so the bugs
// after it (a race the kernel shows) are found; an execution reports one bug.
void report_out_of_bounds(const Interp& in, const DmaArgs& a, const Eqn& e) {
  if (a.out_of_bounds.empty()) return;
  const auto what = fmt::format("out-of-bounds DMA at {}: {}", where(e.loc), a.out_of_bounds);
  if (in.context().clip_out_of_bounds) {
    Execution::current().note(what + " (its in-bounds part moved: out_of_bounds=clip)");
    return;
  }
  Execution::current().fail(Verdict::model_error, what,
                            {"--param out_of_bounds=clip moves its in-bounds part and explores on"});
}

std::vector<Slot> dma_start(Interp& in, const Eqn& e, std::vector<Slot>&) {
  if (e.params.value("add", false))
    throw ModelError("dma_start with add=True is not supported", e.loc);
  DmaArgs a = dma_args(in, e);
  tpu::Sem dst_sem = one_sem(in, a.dst_sem, a.dst_sem_t, e);
  if (a.device_id.is_null()) {
    auto [src, dst] = dma_places(in, a, in.context().device, e);
    report_out_of_bounds(in, a, e);
    tpu::make_copy(src, dst, dst_sem, e.loc).start(e.loc);
    return {};
  }
  std::uint32_t target = device_of(in, a.device_id, e);
  tpu::Sem src_sem = one_sem(in, a.src_sem, a.src_sem_t, e);
  auto [src, dst] = dma_places(in, a, target, e);
  report_out_of_bounds(in, a, e);
  tpu::make_remote_copy(src, dst, src_sem, dst_sem, target, e.loc).start(e.loc);
  return {};
}

// A wait on the DMA semaphore `dst_sem` of this core for the bytes of `dst`:
// Pallas's .wait_recv() and local .wait(), and .wait_send(), which Pallas
// writes as a dma_wait on the send semaphore with src and dst swapped. All
// are the same wait on a byte count; which DMA it consumed is found after.
std::vector<Slot> dma_wait(Interp& in, const Eqn& e, std::vector<Slot>&) {
  DmaArgs a = dma_args(in, e);
  const auto& c = in.context();
  // The wait's byte count is the descriptor's, cut as its start was (and
  // reported there); .wait_send() names the source and destination swapped.
  tpu::Place dst = a.src.kind == RefBinding::Kind::memory ? dma_places(in, a, c.device, e).second
                                                          : place_of(a.dst, c.device, c.core, e);
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
