#include "models/gpu/bulk.hpp"
#include "models/gpu/bulk_internal.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstring>
#include <memory>
#include <optional>

#include "checker/engine/race_hint.hpp"
#include "models/gpu/wgmma.hpp"
#include "models/gpu/reduce.hpp"

namespace heddle::gpu {
namespace detail {

void access(const Span& s, bool write, Proxy proxy, const char* op, std::source_location loc) {
  s.region->check_bounds(s.first, s.count, loc);
  s.region->access(s.first, s.count, write, proxy, op, loc);
}

std::byte* data(const Span& s) { return s.region->bytes() + s.first * s.region->elem_size(); }

// The async agent running now (copies edit their own later phases).
AsyncAgent& self_async() {
  Agent* a = Execution::current().self();
  if (a == nullptr || a->kind != Agent::Kind::async)
    throw std::logic_error("[heddle bug] a copy phase ran outside its async agent");
  return static_cast<AsyncAgent&>(*a);
}

// Reads a tensormap in the tensormap proxy (a race-checked access) and
// resolves the box it places into st's global pieces.
void read_tensormap(const TensorMap& desc, const Box& box, std::size_t want_bytes, Staging& st,
                    std::source_location loc) {
  desc.region().access(desc.first(), kDescBytes, false, Proxy::tensormap, "tma.read_desc", loc);
  resolve_box(st, box.place(desc.region().bytes() + desc.first(), loc), desc, want_bytes, loc);
}

// A bulk op's completion state has two sides: [0, 1) the read side (source
// and tensormap reads done), [1, 2) the write side, so that a .read wait
// observes only read completions and a write phase commutes with it.
Access read_side(const BulkOp& op, bool write) { return Access{op.id(), 0, 1, write}; }
Access write_side(const BulkOp& op, bool write) { return Access{op.id(), 1, 2, write}; }

// The running thread's own clock entry (BulkOp::issued_time).
std::uint32_t issuer_time() {
  const Agent* a = Execution::current().self();
  return a == nullptr ? 0 : a->clock[a->id];
}

// "sC[0:2]", "sC[3]", "sA bytes [0:256]" or "sC" (the whole region): what a
// copy reads or writes, in the notation of every report (range_words).
std::string span_text(const Span& s) { return detail::view_text(*s.region, s.first, s.count); }

// A TMA op read its tensormap after it was rewritten: say where the box
// goes now and where it went by the descriptor the op was issued with.
void note_rewritten(const TensorMap& desc, const Box& box, const std::byte* at_issue,
                    const Staging& now, std::source_location loc) {
  std::string then = "an unmapped address";
  try {
    Staging old;
    resolve_box(old, box.place(at_issue, loc), desc, now.box_bytes, loc);
    if (old.region() != nullptr) then = old.region()->name();
  } catch (const ModelError&) {
  }
  note(fmt::format("{} (issued at {}) read tensormap {} after it was rewritten: its box goes to "
                   "{} instead of {}",
                   self_async().name, where(loc), desc.region().name(),
                   now.region() ? now.region()->name() : "no memory (outside the tensor)", then));
}

// A copy is named by what it moves ("tma_store sC[0:2] -> tmap_out box (0, 1)").
BulkOp& new_op(ThreadState& t, const char* kind, const char* what, const std::string& moves,
               std::source_location loc) {
  ++t.issued;
  return make<BulkOp>(fmt::format("{} {}", kind, moves), what, loc);
}

// The footprint entry of a copy's destination: a write, or a reduction's
// commutative update when its class has one (reduce.hpp says why).
Access dst_entry(const Span& s, bool write, const Reduction* red) {
  Access a = s.touches(write);
  if (red != nullptr && red->update != 0) a = update_of(a.object, red->update, a.lo, a.hi);
  return a;
}

Phase read_desc_phase(const TensorMap& desc, const Box& box, std::size_t bytes,
                      std::shared_ptr<Staging> st, std::size_t target_phase, bool target_write,
                      Footprint target_rest, std::source_location loc, const Reduction* red,
                      std::shared_ptr<DescRead> once) {
  // What the descriptor said when the op was issued.
  std::array<std::byte, kDescBytes> at_issue;
  std::memcpy(at_issue.data(), desc.region().bytes() + desc.first(), kDescBytes);
  // The phase runs after the issuing call returned: it keeps its own copy
  // (`red` points into the issuer's frame; ASan saw the dangling read).
  const std::optional<Reduction> reduction = red ? std::optional<Reduction>(*red) : std::nullopt;
  return phase("read_desc", {desc.touches(false)}, [=] {
    if (once && once->done) {  // a multicast reads its tensormap once (multicast.hpp)
      *st = once->staging;
      Execution::current().acquire(once->clock);
    } else {
      read_tensormap(desc, box, bytes, *st, loc);
      if (std::memcmp(desc.region().bytes() + desc.first(), at_issue.data(), kDescBytes) != 0)
        note_rewritten(desc, box, at_issue.data(), *st, loc);
      if (once) {
        once->staging = *st;
        once->done = true;
        Execution::current().release(once->clock);
      }
    }
    Footprint fp = global_footprint(*st, target_write, reduction ? &*reduction : nullptr);
    for (const Access& a : target_rest) fp.push_back(a);
    Phase& target = self_async().phases[target_phase];
    target.footprint = fp;
    if (Region* r = st->region()) {
      target.object = r->id();  // schedules name where the box really goes
      target.has_object = true;
    }
  });
}

}  // namespace detail

namespace {
using namespace detail;

// A load completes on its mbarrier: waiting there is what orders it. Under
// --ptx-strict, a bulk wait the issuer did before its racing access (at its
// own time `at`) is named: it is there but covers no mbarrier-completed load.
void hint_mbarrier_wait(AgentId load, const Mbarrier& bar, const BulkOp* op) {
  Execution::current().set_wait_hint(load, [name = bar.name(), op](bool, std::uint32_t at) {
    std::string s = fmt::format("wait on mbarrier {} (mbarrier.try_wait.parity, "
                                "pipeline.consumer_wait, plgpu.barrier_wait) for the phase the "
                                "copy completes",
                                name);
    if (op != nullptr && op->strict_wait && op->strict_wait_time <= at)
      s += fmt::format(" (the bulk wait_group at {} is there, but under "
                       "--ptx-strict it covers no mbarrier-completed load: PTX ISA "
                       "9.7.9.25.6.1 batches only bulk-group copies; wait the load's "
                       "mbarrier instead)",
                       where(*op->strict_wait));
    return s;
  });
}

// Whether `op` no longer keeps its group pending: a store once waited
// entirely, a TMA load once its tensormap read was waited (or, under
// --ptx-strict, once a wait covered its group: the ISA counts no load there).
bool settled(const BulkOp& op) {
  if (op.mbarrier_completed) return op.read_waited || op.strict_wait.has_value();
  return op.write_waited;
}

// Ops of the groups a wait covers that it has not waited yet. A TMA load's
// tensormap read is covered by both forms (checker/DESIGN.md § Bulk
// async-groups and TMA loads); under --ptx-strict, by neither: the load is
// only marked with this wait (at `loc`) for the race hint.
std::vector<BulkOp*> waited_ops(BulkQueue& q, std::uint32_t n, bool read_only,
                                std::source_location loc) {
  const bool strict = current_grid().config().ptx_strict;
  std::vector<BulkOp*> out;
  std::size_t k = q.groups.size() > n ? q.groups.size() - n : 0;
  for (std::size_t g = 0; g < k; ++g)
    for (BulkOp* op : q.groups[g]) {
      if (op->mbarrier_completed && strict) {
        if (!op->strict_wait) op->strict_wait = loc, op->strict_wait_time = issuer_time();
      } else if ((op->mbarrier_completed || read_only) ? !op->read_waited : !op->write_waited) {
        out.push_back(op);
      }
    }
  return out;
}

// What a wait needs of `op`: its read side, and for a full wait its write
// side too. Each side is written by one phase of the op only, so each entry
// is needed (DPOR's needs_step, Access::needs_completion): a full wait never
// runs before the op's write phase. Declared as one read of both sides, a
// reversal of (write phase, wait) looked possible whenever another op the
// wait covers completed in between, and optimal DPOR ran that wakeup
// branch into a sleep-set-blocked execution (issue 47 item 5:
// hopper/tma_reduce_splitk, 3 executions of which 2 blocked, against 1).
void add_wait_entries(Footprint& fp, const BulkOp& op, bool read_only) {
  fp.push_back(needed(read_side(op, false)));
  if (!read_only && !op.mbarrier_completed) fp.push_back(needed(write_side(op, false)));
}

void wait_group(std::uint32_t n, bool read_only, std::source_location loc) {
  ThreadState& t = current_grid().current(loc);
  std::vector<BulkOp*> ops = waited_ops(t.bulk, n, read_only, loc);
  if (!ops.empty()) {  // else nothing to wait for: not an operation on shared state
    auto& ex = Execution::current();
    PendingOp p;
    p.name = read_only ? "cp.async.bulk.wait_group.read" : "cp.async.bulk.wait_group";
    p.loc = loc;
    p.object = ops.front()->id();
    p.has_object = true;
    for (BulkOp* op : ops) add_wait_entries(p.footprint, *op, read_only);
    auto done = [&ops, read_only] {  // lives while the operation is pending (EnabledRef)
      return std::all_of(ops.begin(), ops.end(), [read_only](const BulkOp* op) {
        return read_only || op->mbarrier_completed ? op->read_done : op->write_done;
      });
    };
    p.enabled = done;
    ex.visible(std::move(p));
    for (BulkOp* op : ops) {
      ex.acquire(op->read_clock);
      op->read_waited = true;
      if (read_only || op->mbarrier_completed) continue;
      ex.acquire(op->write_clock);
      op->write_waited = true;
    }
  }
  auto& g = t.bulk.groups;
  while (!g.empty() && std::all_of(g.front().begin(), g.front().end(),
                                   [](const BulkOp* op) { return settled(*op); }))
    g.erase(g.begin());
}

}  // namespace

Access Span::touches(bool write) const {
  auto lo = static_cast<std::uint32_t>(first * region->elem_size());
  return Access{region->id(), lo, static_cast<std::uint32_t>(lo + bytes()), write};
}

TensorMap global_tensormap(const std::string& name, const TmaDesc& init) {
  TensorMap m = global<std::uint8_t>(name, kDescBytes);
  std::memcpy(m.region().bytes(), &init, sizeof init);
  return m;
}

Shared<std::uint8_t> shared_tensormap(const std::string& name, const TmaDesc& init) {
  Shared<std::uint8_t> s = shared<std::uint8_t>(name, kDescBytes);
  for (int c = 0; c < s.ctas(); ++c) std::memcpy(s[c].region().bytes(), &init, sizeof init);
  return s;
}

void tensormap_replace_global_address(const TensorMap& desc, std::uint64_t address,
                                      std::source_location loc) {
  // PTX: a weak memory operation on the whole 1024-bit tensormap object.
  desc.region().access(desc.first(), kDescBytes, true, Proxy::generic, "tensormap.replace", loc);
  std::memcpy(desc.region().bytes() + desc.first() + offsetof(TmaDesc, global_address), &address,
              sizeof address);
}

void tensormap_cp_fenceproxy(const TensorMap& global_desc, const TensorMap& shared_desc,
                             std::source_location loc) {
  auto& ex = Execution::current();
  PendingOp p;
  p.name = "tensormap.cp_fenceproxy";
  p.loc = loc;
  p.object = global_desc.region().id();
  p.has_object = true;
  p.footprint = {global_desc.touches(true), shared_desc.touches(false)};
  ex.visible(std::move(p));
  Span src{&shared_desc.region(), shared_desc.first(), kDescBytes};
  Span dst{&global_desc.region(), global_desc.first(), kDescBytes};
  access(src, false, Proxy::generic, "tensormap.cp_fenceproxy", loc);
  access(dst, true, Proxy::generic, "tensormap.cp_fenceproxy", loc);
  std::memcpy(data(dst), data(src), kDescBytes);
  // PTX ISA §9.7.9.26 (tensormap.cp_fenceproxy): the copy, then a release
  // proxy pattern from it to later tensormap-proxy accesses of dst.
  Execution::current().proxy_release(Proxy::tensormap);
}

void fence_proxy_tensormap_release(const TensorMap&, std::source_location) {
  // PTX ISA §9.7.13.4 (membar/fence, proxy fences): the .release half of the
  // uni-directional generic -> tensormap pattern; thread-local, no scheduling point.
  Execution::current().proxy_release(Proxy::tensormap);
}

void fence_proxy_tensormap_acquire(const TensorMap&, std::source_location) {
  // PTX ISA §9.7.13.4: a .release proxy fence forms a release sequence that
  // synchronizes with an acquire sequence containing the .acquire one: only
  // generic writes released (here or by a thread synchronized with) become
  // visible to later tensormap-proxy reads.
  Execution::current().proxy_acquire(Proxy::tensormap);
}

void fence_proxy_async(std::source_location) { Execution::current().proxy_fence(Proxy::async); }

namespace {
// Race hints name the fences in PTX and CUTLASS / Pallas words.
const bool fences_named = [] {
  name_proxy_fence(Proxy::async,
                   "fence.proxy.async (fence_view_async_shared() / plgpu.commit_smem())");
  name_proxy_fence(Proxy::tensormap,
                   "fence.proxy.tensormap::generic.release after the descriptor write "
                   "(tensormap.cp_fenceproxy / tma_descriptor_cp_fence_release()) and "
                   ".acquire before the TMA op (tma_descriptor_fence_acquire())");
  return true;
}();
}  // namespace

void bulk_load(const Span& dst, const Span& src, Mbarrier& bar, std::source_location loc) {
  ThreadState& t = current_grid().current(loc);
  ++t.issued;
  std::string name = fmt::format("bulk_load {} -> {}", span_text(src), span_text(dst));
  Mbarrier* b = &bar;
  bar.copy_issued(static_cast<std::uint32_t>(dst.bytes()), loc);
  Footprint fp{dst.touches(true), src.touches(false), all_phases(bar.id())};
  AgentId agent = issue(name, {phase("copy", fp, [=] {
          access(src, false, Proxy::async, "bulk_load.read_gmem", loc);
          access(dst, true, Proxy::async, "bulk_load.write_smem", loc);
          std::memmove(data(dst), data(src), dst.bytes());
          b->note_landing("bulk load " + self_async().name, loc);
          b->complete_tx(static_cast<std::uint32_t>(dst.bytes()));
        })},
        loc);
  hint_mbarrier_wait(agent, bar, nullptr);
}

void tensor_load(const Span& dst, const TensorMap& desc, std::uint32_t c0, std::uint32_t c1,
                 Mbarrier& bar, std::source_location loc) {
  tensor_load(dst, desc, desc_box(c0, c1), bar, loc);
}

void tensor_load(const Span& dst, const TensorMap& desc, const Box& box, Mbarrier& bar,
                 std::source_location loc) {
  tensor_load_once(dst, desc, box, bar, nullptr, loc);
}

void detail::tensor_load_once(const Span& dst, const TensorMap& desc, const Box& box, Mbarrier& bar,
                              std::shared_ptr<DescRead> once, std::source_location loc) {
  ThreadState& t = current_grid().current(loc);
  BulkOp& op = new_op(t, "tma_load", "tensor load", box_text(desc, box) + " -> " + span_text(dst), loc);
  BulkOp* o = &op;
  o->issued_time = issuer_time();
  Mbarrier* b = &bar;
  bar.copy_issued(static_cast<std::uint32_t>(dst.bytes()), loc);
  auto st = std::make_shared<Staging>();
  // st->global is the global box this load reads (resolved from the tensormap).
  Footprint rest{dst.touches(true), all_phases(bar.id()), write_side(op, true)};
  Phase rd = read_desc_phase(desc, box, dst.bytes(), st, 1, false, rest, loc, nullptr, once);
  auto inner = rd.effect;
  rd.effect = [=] {  // the tensormap read is the load's bulk-group read side
    inner();
    o->read_done = true;
    Execution::current().release(o->read_clock);
  };
  rd.footprint.push_back(read_side(op, true));
  const std::uint32_t smem_address = box.smem_address;
  AgentId agent = issue(op.name(), {rd, phase("copy", rest, [=] {
                      // PTX ISA 5.5.6: box elements outside the tensor are filled with zeros.
                      std::vector<std::byte> bytes(st->box_bytes);
                      for (const Piece& p : st->global) {
                        access(p.span, false, Proxy::async, "tma_load.read_gmem", loc);
                        std::memcpy(bytes.data() + p.box_offset, data(p.span), p.span.bytes());
                      }
                      access(dst, true, Proxy::async, "tma_load.write_smem", loc);
                      to_smem(dst, bytes.data(), st->swizzle, smem_address);
                      o->write_done = true;
                      Execution::current().release(o->write_clock);
                      b->note_landing("tensor load " + o->name(), loc);
                      b->complete_tx(static_cast<std::uint32_t>(dst.bytes()));
                    })},
        loc);
  hint_mbarrier_wait(agent, bar, o);
  // Completed by its mbarrier (PTX ISA 9.7.9.25, completion mechanisms; see
  // note_landing), but in the issuer's bulk queue so that a later bulk
  // wait covers its tensormap read by default (waited_ops).
  o->mbarrier_completed = true;
  t.bulk.uncommitted.push_back(o);
}

void bulk_commit_group() {
  // Thread-local bookkeeping: no scheduling point.
  ThreadState& t = current_grid().current();
  t.bulk.groups.push_back(std::move(t.bulk.uncommitted));
  t.bulk.uncommitted.clear();
}

void bulk_wait_group(std::uint32_t n, std::source_location loc) { wait_group(n, false, loc); }

void bulk_wait_group_read(std::uint32_t n, std::source_location loc) {
  wait_group(n, true, loc);
}

std::size_t bulk_pending() {
  ThreadState& t = current_grid().current();
  std::size_t n = std::count_if(t.bulk.uncommitted.begin(), t.bulk.uncommitted.end(),
                                [](const BulkOp* op) { return !op->mbarrier_completed; });
  for (const auto& g : t.bulk.groups)
    for (const BulkOp* op : g) n += !op->mbarrier_completed && !op->write_waited;
  return n;
}

}  // namespace heddle::gpu
