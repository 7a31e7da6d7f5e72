// Bulk and tensor stores and reductions from shared to global memory
// (PTX ISA §9.7.9.25.4.1 cp.async.bulk, §9.7.9.25.4.2 cp.reduce.async.bulk,
// §9.7.9.25.5.1-2 their .tensor forms), completed through bulk async-groups.
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <optional>

#include "models/gpu/bulk_internal.hpp"
#include "models/gpu/reduce.hpp"

namespace heddle::gpu {
namespace {
using namespace detail;

// What the issuer must call so that its bulk async-groups cover `o`, at the
// depth that did at its racing access, its own time `at` (PTX ISA
// 9.7.9.25.4.3, cp.async.bulk.wait_group): only groups with an op issued
// before that access count as newer. `whole` when the copy's racing access
// is its write, else the .read form.
std::string group_wait_words(const BulkQueue& q, const BulkOp* o, bool whole, std::uint32_t at) {
  const std::string ptx = whole ? "cp.async.bulk.wait_group" : "cp.async.bulk.wait_group.read";
  auto alias = [&](std::size_t n) {
    return whole ? fmt::format("wait_smem_to_gmem({})", n)
                 : fmt::format("tma_store_wait<{}>() / wait_smem_to_gmem({}, "
                               "wait_read_only=True)",
                               n, n);
  };
  for (std::size_t g = 0; g < q.groups.size(); ++g) {
    if (std::find(q.groups[g].begin(), q.groups[g].end(), o) == q.groups[g].end()) continue;
    std::size_t n = 0;  // newer groups that existed at the access
    for (std::size_t h = g + 1; h < q.groups.size(); ++h)
      n += std::any_of(q.groups[h].begin(), q.groups[h].end(),
                       [at](const BulkOp* op) { return op->issued_time < at; });
    return fmt::format("wait with {} {} ({}), to depth {}: {} newer group{} may stay in flight",
                       ptx, n, alias(n), n, n, n == 1 ? "" : "s");
  }
  if (std::find(q.uncommitted.begin(), q.uncommitted.end(), o) != q.uncommitted.end())
    return fmt::format("commit it (cp.async.bulk.commit_group, tma_store_arrive()) and wait "
                       "with {} 0 ({})",
                       ptx, alias(0));
  return fmt::format("wait with {} 0 ({})", ptx, alias(0));
}

// Names of a store's or reduction's accesses (records keep the pointers).
struct StoreWords {
  const char* kind;  // the agent's name prefix
  const char* what;  // BulkOp::kind
  const char* read;
  const char* write;
};
StoreWords store_words(bool tensor, const Reduction* red) {
  if (red != nullptr)
    return tensor ? StoreWords{"tma_reduce", "tensor reduce", "tma_reduce.read_smem",
                               "tma_reduce.write_gmem"}
                  : StoreWords{"bulk_reduce", "bulk reduce", "bulk_reduce.read_smem",
                               "bulk_reduce.write_gmem"};
  return tensor ? StoreWords{"tma_store", "tensor store", "tma_store.read_smem",
                             "tma_store.write_gmem"}
                : StoreWords{"bulk_store", "bulk store", "bulk_store.read_smem",
                             "bulk_store.write_gmem"};
}

// A store (red == nullptr) or a reduction: read_desc (tensor forms), then
// read_smem, then write_gmem. A reduction's write is an atomic
// read-modify-write of each element, with .relaxed.gpu semantics per
// element (PTX ISA §9.7.9.25.4.2): reductions do not race with each other.
void issue_store(const TensorMap* desc, const Box& box, const Span& dst, const Span& src,
                 std::source_location loc, const Reduction* red = nullptr) {
  ThreadState& t = current_grid().current(loc);
  const StoreWords w = store_words(desc != nullptr, red);
  std::string kind = red ? fmt::format("{}_{}", w.kind, red->name) : w.kind;
  BulkOp& op = new_op(t, kind.c_str(), w.what,
                      span_text(src) + " -> " + (desc ? box_text(*desc, box) : span_text(dst)), loc);
  auto st = std::make_shared<Staging>();
  if (!desc) st->global.push_back(Piece{dst, 0});
  BulkOp* o = &op;
  o->issued_time = issuer_time();
  std::optional<Reduction> r = red ? std::optional<Reduction>(*red) : std::nullopt;
  std::vector<Phase> phases;
  std::size_t write_index = desc ? 2 : 1;
  if (desc)
    phases.push_back(read_desc_phase(*desc, box, src.bytes(), st, write_index, true,
                                     {write_side(op, true)}, loc, red));
  const std::uint32_t smem_address = desc ? box.smem_address : 0;
  phases.push_back(phase("read_smem", {src.touches(false), read_side(op, true)}, [=] {
    access(src, false, Proxy::async, w.read, loc);
    st->bytes.resize(src.bytes());
    from_smem(st->bytes.data(), src, st->swizzle, smem_address);
    o->read_done = true;
    Execution::current().release(o->read_clock);
  }));
  Footprint write_fp{write_side(op, true)};
  if (!desc) write_fp.insert(write_fp.begin(), dst_entry(dst, true, red));
  phases.push_back(phase("write_gmem", write_fp, [=] {
    for (const Piece& p : st->global) {  // PTX ISA 5.5.6: parts outside the tensor are not written
      const std::byte* from = st->bytes.data() + p.box_offset;
      if (r) {
        p.span.region->check_bounds(p.span.first, p.span.count, loc);
        p.span.region->reduce(p.span.first, p.span.count, Proxy::async, w.write, loc);
        r->combine(data(p.span), from, p.span.bytes());
      } else {
        access(p.span, true, Proxy::async, w.write, loc);
        std::memcpy(data(p.span), from, p.span.bytes());
      }
    }
    o->write_done = true;
    Execution::current().release(o->write_clock);
  }));
  AgentId agent = issue(op.name(), std::move(phases), loc);
  const BulkQueue* q = &t.bulk;
  Execution::current().set_wait_hint(agent, [q, o](bool writes, std::uint32_t at) {
    return group_wait_words(*q, o, writes, at);
  });
  t.bulk.uncommitted.push_back(o);
}

}  // namespace

void bulk_store(const Span& dst, const Span& src, std::source_location loc) {
  if (dst.bytes() != src.bytes())
    throw ModelError("bulk store: source and destination sizes differ", loc);
  issue_store(nullptr, Box{}, dst, src, loc);
}

void tensor_store(const TensorMap& desc, std::uint32_t c0, std::uint32_t c1, const Span& src,
                  std::source_location loc) {
  issue_store(&desc, desc_box(c0, c1), Span{}, src, loc);
}

void tensor_store(const TensorMap& desc, const Box& box, const Span& src, std::source_location loc) {
  issue_store(&desc, box, Span{}, src, loc);
}

void bulk_reduce(const Span& dst, const Span& src, const Reduction& red,
                 std::source_location loc) {
  if (dst.bytes() != src.bytes() || dst.region->elem_size() != src.region->elem_size())
    throw ModelError("bulk reduce: source and destination differ in size or element type", loc);
  issue_store(nullptr, Box{}, dst, src, loc, &red);
}

void tensor_reduce(const TensorMap& desc, std::uint32_t c0, std::uint32_t c1, const Span& src,
                   const Reduction& red, std::source_location loc) {
  issue_store(&desc, desc_box(c0, c1), Span{}, src, loc, &red);
}

void tensor_reduce(const TensorMap& desc, const Box& box, const Span& src, const Reduction& red,
                   std::source_location loc) {
  issue_store(&desc, box, Span{}, src, loc, &red);
}

}  // namespace heddle::gpu
