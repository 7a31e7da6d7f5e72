// The PTX memory consistency model (PTX ISA 8) for ld/st/atom/red and
// fence, on heddle's happens-before clocks.
//
// - A strong operation (PTX ISA 8.4: .relaxed, .acquire, .release,
//   .acq_rel, .volatile, and every atom/red) is a visible operation on its
//   bytes; two strong operations never race (they are morally strong when
//   their scopes include each other, 8.6), a strong and a plain (weak) one
//   race unless ordered (Region::reduce). Weak ld/st stay invisible plain
//   accesses (warp.cpp).
// - Release/acquire patterns (8.8): a .release store or RMW releases the
//   thread's clock into the location, an .acquire load or RMW acquires it.
//   A fence.acq_rel/fence.sc/membar (9.7.13.4) releases for the relaxed
//   stores after it (the clock as of the fence), and acquires what the
//   relaxed loads before it read, so "fence; st.relaxed" / "ld.relaxed;
//   fence" synchronize as the ISA's fence-fence and fence-acquire patterns.
// - Scopes (8.5): a location keeps one clock per CTA (what that CTA
//   released at any scope) and one for .gpu/.sys releases. An acquire gets
//   its own CTA's clock and, at .gpu/.sys, the wide one: a .cta release and
//   acquire in different CTAs do not synchronize. A cluster is one CTA
//   here, so .cluster acts as .cta.
// - A spin loop on a strong load (mark_spin_loops) waits for the location
//   to change instead of spinning: its body is a pure function of the value
//   read, so another trip that reads the same bytes is the same trip again.
#include <fmt/format.h>

#include <cstring>
#include <set>

#include "checker/engine/guarded.hpp"
#include "models/ptx/opcodes.hpp"
#include "models/ptx/warp.hpp"

namespace heddle::ptx {

bool decode_memory_order(Instr& in) {
  static const std::pair<const char*, Sem> sems[] = {
      {"relaxed", Sem::relaxed}, {"acquire", Sem::acquire}, {"release", Sem::release},
      {"acq_rel", Sem::acq_rel}, {"volatile", Sem::relaxed}, {"sc", Sem::acq_rel}};
  static const std::pair<const char*, Scope> scopes[] = {
      {"cta", Scope::cta}, {"cluster", Scope::cluster}, {"gpu", Scope::gpu},
      {"gl", Scope::gpu},  {"sys", Scope::sys}};
  int n_sem = 0, n_scope = 0;
  for (auto [m, s] : sems)
    if (in.has(m)) in.sem = s, ++n_sem;
  for (auto [m, s] : scopes)
    if (in.has(m)) in.scope = s, ++n_scope;
  if (n_sem > 1 || n_scope > 1 || in.has("mmio")) return false;
  if (in.has("volatile")) in.scope = Scope::sys;  // 9.7.9.8: ld.volatile acts as ld.relaxed.sys
  const bool strong_space = in.space != Space::param && in.space != Space::local &&
                            in.space != Space::constant;
  switch (in.op) {
    case Op::ld:
      return in.sem == Sem::weak || ((in.sem == Sem::relaxed || in.sem == Sem::acquire) && strong_space);
    case Op::st:
      return in.sem == Sem::weak || ((in.sem == Sem::relaxed || in.sem == Sem::release) && strong_space);
    case Op::atom:
    case Op::red:
      if (in.sem == Sem::weak) in.sem = Sem::relaxed;  // 9.7.13.5: atomics are strong, .relaxed by default
      return in.op == Op::atom || in.sem == Sem::relaxed || in.sem == Sem::release;
    case Op::fence_order:
      in.sem = Sem::acq_rel;  // fence.sc orders at least as fence.acq_rel does (README)
      return true;
    default: return true;
  }
}

namespace {

bool acquires(Sem s) { return s == Sem::acquire || s == Sem::acq_rel; }
bool releases(Sem s) { return s == Sem::release || s == Sem::acq_rel; }

// The location's clocks a strong operation of `in`'s scope meets (see above).
std::pair<SyncClock*, SyncClock*> clocks_of(Warp& w, const Instr& in, const Region* r,
                                            std::size_t off) {
  SyncClock* cta = &w.state.location_clock(r, off, w.thread.cta);
  SyncClock* wide = in.scope >= Scope::gpu ? &w.state.location_clock(r, off, -1) : nullptr;
  return {cta, wide};
}

}  // namespace

void release_at(Warp& w, const Instr& in, const Region* r, std::size_t off) {
  auto [cta, wide] = clocks_of(w, in, r, off);
  auto& ex = Execution::current();
  if (releases(in.sem)) {
    ex.release(*cta);
    if (wide != nullptr) ex.release(*wide);
  } else if (w.order.fenced) {  // a relaxed write after a fence (8.8, fence-fence pattern)
    cta->join(w.order.fence_release);
    if (wide != nullptr) wide->join(w.order.fence_release);
  }
}

void acquire_at(Warp& w, const Instr& in, const Region* r, std::size_t off) {
  auto [cta, wide] = clocks_of(w, in, r, off);
  if (acquires(in.sem)) {
    auto& ex = Execution::current();
    ex.acquire(*cta);
    if (wide != nullptr) ex.acquire(*wide);
    return;
  }
  w.order.pending_acquire.join(*cta);  // the next fence acquires what was read
  if (wide != nullptr) w.order.pending_acquire.join(*wide);
}

void memory_fence(Warp& w, const Instr& /*in*/) {
  auto& ex = Execution::current();
  ex.acquire(w.order.pending_acquire);
  ex.release(w.order.fence_release);
  w.order.fenced = true;
}

namespace {

// What one lane of a strong ld/st touches.
struct Place {
  Region* region = nullptr;
  std::size_t off = 0;
};

// The visible operation `name` on the lanes' `bytes` at `at`.
PendingOp operation(const char* name, const Instr& in, std::uint32_t exec, const std::array<Place, 32>& at,
                    std::size_t bytes, bool write) {
  PendingOp p;
  p.name = name;
  p.loc = in.loc;
  p.object = at[static_cast<std::size_t>(std::countr_zero(exec))].region->id();
  p.has_object = true;
  for (int l = 0; l < 32; ++l)
    if (exec >> l & 1) {
      auto lo = static_cast<std::uint32_t>(at[l].off);
      p.footprint.push_back(Access{at[l].region->id(), lo, lo + static_cast<std::uint32_t>(bytes), write});
    }
  return p;
}

// Blocks the warp, back at the head of its spin loop, until one lane's
// location holds other bytes than that lane read on the last trip.
void await_change(Warp& w, const Instr& in, std::uint32_t exec, const std::array<Place, 32>& at) {
  auto& spin = w.order;
  const int pc = static_cast<int>(&in - w.state.program().code.data());
  if (spin.spin_pc != pc || (exec & ~spin.spin_exec) != 0) return;  // the first trip
  const std::size_t bytes = static_cast<std::size_t>(in.type.bytes);
  auto changed = [&] {
    for (int l = 0; l < 32; ++l) {
      if (!(exec >> l & 1)) continue;
      std::uint64_t now = 0;
      std::memcpy(&now, std::as_const(*at[l].region).bytes() + at[l].off, bytes);
      if (now != spin.spin_value[l]) return true;
    }
    return false;
  };
  if (changed()) return;
  std::function<bool()> pred = changed;
  auto cond = [&pred] { return guarded_call(pred); };
  PendingOp p = operation("spin.await", in, exec, at, bytes, false);
  p.enabled = cond;
  Execution::current().visible(std::move(p));
}

}  // namespace

// A strong ld/st: one visible operation for the warp's lanes (they move in
// lockstep, as plain accesses do), race-checked as atomic, then its
// release/acquire effects per lane's location.
void strong_load_store(Warp& w, const Instr& in, std::uint32_t exec) {
  const bool store = in.op == Op::st;
  const Arg& data = store ? in.args.at(1) : in.args.at(0);
  const Arg& addr = store ? in.args.at(0) : in.args.at(1);
  const int size = in.type.bytes, n = in.vec;
  const auto bytes = static_cast<std::size_t>(size * n);
  std::array<Place, 32> at{};
  for (int l = 0; l < 32; ++l)
    if (exec >> l & 1) {
      auto [r, off] = w.memory(in, addr, l, in.space, bytes);
      at[l] = {r, off};
    }
  if (in.spin_begin >= 0) await_change(w, in, exec, at);
  Execution::current().visible(operation(store ? "st.strong" : "ld.strong", in, exec, at, bytes, store));
  const char* what = store ? "st (strong)" : "ld (strong)";
  for (int l = 0; l < 32; ++l) {
    if (!(exec >> l & 1)) continue;
    Region* r = at[l].region;
    r->reduce(at[l].off, bytes, Proxy::generic, what, in.loc);
    if (store) release_at(w, in, r, at[l].off);
    for (int k = 0; k < n; ++k) {
      const Arg& d = n == 1 ? data : data.elems.at(k);
      std::byte* cell = r->bytes() + at[l].off + k * size;
      std::uint64_t v = 0;
      if (store) {
        v = w.value(d, l, in.type);
        std::memcpy(cell, &v, size);
      } else {
        std::memcpy(&v, cell, size);
        if (k == 0) w.order.spin_value[l] = v;
        if (in.type.is_signed()) v = static_cast<std::uint64_t>(sign_extend(v, size));
        w.set(d, l, v, Type{in.type.kind, 8});
      }
    }
    if (!store) acquire_at(w, in, r, at[l].off);
  }
  if (in.spin_begin >= 0) {
    w.order.spin_pc = static_cast<int>(&in - w.state.program().code.data());
    w.order.spin_exec = exec;
  }
}

}  // namespace heddle::ptx
