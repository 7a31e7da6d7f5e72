#include "checker/engine/memory.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <utility>

#include "checker/engine/execution.hpp"
#include "checker/engine/fiber.hpp"
#include "checker/engine/race_hint.hpp"
#include "checker/engine/range_words.hpp"

namespace heddle {

ModelError stale_object_error(const char* what, std::source_location loc) {
  return ModelError(fmt::format("a {} of an earlier execution is used: each execution builds its "
                                "own objects, so keep no reference to them in statics or across "
                                "executions",
                                what),
                    loc);
}

namespace {
// Checked before anything is allocated: a huge buffer is the model's error.
std::size_t checked_bytes(const std::string& name, std::size_t elem_size, std::size_t count) {
  if (count > kMaxRegionBytes || elem_size * count > kMaxRegionBytes)
    throw ModelError(fmt::format("buffer {} of {} elements of {} bytes is over heddle's limit of "
                                 "{} MiB per buffer",
                                 name, count, elem_size, kMaxRegionBytes >> 20));
  return elem_size * count;
}
}  // namespace

Region::Region(std::string name, std::size_t elem_size, std::size_t count, const void* init)
    : name_(std::move(name)), elem_size_(elem_size), count_(count) {
  checked_bytes(name_, elem_size, count);
  auto& ex = Execution::current();
  serial_ = ex.serial();
  id_ = ex.add_object(name_);
  take_storage(init);
}

namespace {
// A region's storage between executions.
struct RegionStorage {
  std::vector<std::byte> bytes;
  std::vector<ShadowCell> shadow;  // every cell empty
  bool zero = false;               // every byte is zero
};
// Per object index: what the last region of that index left on this OS
// thread. Setup is deterministic, so the next execution's region of the
// same index mostly has the same size: no allocation, and its shadow cells
// keep their read lists' capacity.
thread_local std::vector<RegionStorage> t_spare_regions;
}  // namespace

void Region::take_storage(const void* init) {
  const std::size_t slot = index(id_), bytes = elem_size_ * count_;
  bool zero = true;  // (a new vector's bytes are)
  if (slot < t_spare_regions.size() && t_spare_regions[slot].shadow.size() == count_ &&
      t_spare_regions[slot].bytes.size() == bytes) {
    bytes_ = std::move(t_spare_regions[slot].bytes);
    shadow_ = std::move(t_spare_regions[slot].shadow);
    zero = t_spare_regions[slot].zero;
  } else {
    bytes_.resize(bytes);
    shadow_.resize(count_);
  }
  const auto* elem = static_cast<const std::byte*>(init);
  auto is_zero = [](std::byte b) { return b == std::byte{0}; };
  if (elem == nullptr || std::all_of(elem, elem + elem_size_, is_zero)) {
    if (!zero) std::fill(bytes_.begin(), bytes_.end(), std::byte{0});
    return;
  }
  written_ = true;
  for (std::size_t k = 0; k < count_; ++k)
    std::memcpy(bytes_.data() + k * elem_size_, elem, elem_size_);
}

Region::~Region() {
  for (std::size_t e = touched_lo_; e < touched_hi_; ++e) {
    shadow_[e].write = AccessRecord{};
    shadow_[e].reads.clear();
  }
  const std::size_t slot = index(id_);
  if (slot >= t_spare_regions.size()) t_spare_regions.resize(slot + 1);
  t_spare_regions[slot] = RegionStorage{std::move(bytes_), std::move(shadow_), !written_};
}

void Region::check_current(std::source_location loc) const {
  if (serial_ != Execution::current().serial()) throw stale_object_error("buffer", loc);
}

// Every element access checks its bounds first, so the check that the
// region is this execution's sits here too: a buffer kept from an earlier
// execution is refused at any read, raw() included (issue 54.2: a raw read
// of a kept buffer passed as verified). Two arenas take turns, so the kept
// region still holds its own serial (Execution::take_arena).
void Region::check_bounds(std::size_t first, std::size_t n, std::source_location loc) const {
  const std::uint64_t now = Execution::current().serial();  // (first: none after main)
  if (serial_ != now) throw stale_object_error("buffer", loc);
  if (first + n > count_ || first + n < first)
    throw ModelError(fmt::format("access to {} is out of bounds (size {})",
                                 range_words(name_, elem_size_, first, n), count_),
                     loc);
}

void Region::access(std::size_t first, std::size_t n, bool write, Proxy proxy, const char* op,
                    std::source_location loc) {
  check_and_record(first, n, write, false, proxy, op, loc);
}

void Region::reduce(std::size_t first, std::size_t n, Proxy proxy, const char* op,
                    std::source_location loc) {
  check_and_record(first, n, true, true, proxy, op, loc);
}

// Atomic accesses (reductions) sit in a cell's reads, since several may be
// concurrent: they race with unordered plain accesses only, so a plain read
// checks them as writes, and a reduction checks the plain reads.
void Region::check_and_record(std::size_t first, std::size_t n, bool write, bool atomic,
                              Proxy proxy, const char* op, std::source_location loc) {
  auto& ex = Execution::current();
  if (serial_ != ex.serial()) throw stale_object_error("buffer", loc);
  Agent* a = ex.self();
  if (a == nullptr) return;  // setup and exit checks: initial contents and results
  if (step_watchdog_fired()) throw StepTimeout();
  touched_lo_ = std::min(touched_lo_, first);  // (before a race returns half-way)
  touched_hi_ = std::max(touched_hi_, first + n);
  const AccessRecord now{a->id, a->clock[a->id], ex.step(), proxy, op, atomic, loc};
  // A later-proxy access sees an earlier generic access only through a proxy
  // fence, i.e. through the commit clock (checker/DESIGN.md § Proxies and tensormaps).
  auto ordered = [&](const AccessRecord& prior) {
    if (prior.time == 0 || prior.agent == now.agent) return true;
    const VectorClock& c = (proxy != Proxy::generic && prior.proxy == Proxy::generic)
                               ? a->commit[proxy]
                               : a->clock;
    return c.covers(Epoch{prior.agent, prior.time});
  };
  // The racing elements: from e on, as long as the same prior access races.
  auto extent = [&](std::size_t e, const AccessRecord& prior, bool in_write) {
    auto same = [&](const AccessRecord& r) {
      return r.agent == prior.agent && r.time == prior.time && r.op == prior.op;
    };
    std::size_t last = e;
    while (last + 1 < first + n) {
      const ShadowCell& next = shadow_[last + 1];
      bool found = in_write ? same(next.write)
                            : std::any_of(next.reads.begin(), next.reads.end(), same);
      if (!found) break;
      ++last;
    }
    return last;
  };
  for (std::size_t e = first; e < first + n; ++e) {
    ShadowCell& cell = shadow_[e];
    if (!ordered(cell.write))
      return race(cell.write, true, e, extent(e, cell.write, true), write, now);
    for (const auto& r : cell.reads) {
      // Two atomics never race; two plain reads neither.
      const bool conflict = atomic ? !r.atomic : (write || r.atomic);
      if (conflict && !ordered(r)) return race(r, r.atomic, e, extent(e, r, false), write, now);
    }
    if (write && !atomic) {
      cell.write = now;
      cell.reads.clear();
      continue;
    }
    bool replaced = false;
    for (auto& r : cell.reads)
      if (r.agent == now.agent && r.proxy == now.proxy && r.atomic == now.atomic)
        r = now, replaced = true;
    if (!replaced) cell.reads.push_back(now);
  }
}

void Region::race(const AccessRecord& prior, bool prior_write, std::size_t elem,
                  std::size_t last, bool write, const AccessRecord& now) {
  auto& ex = Execution::current();
  auto info = [&](const AccessRecord& r, bool w) {
    AccessInfo i;
    i.agent = ex.agents()[index(r.agent)]->name;
    i.op = r.op;
    i.region = name_;
    i.first = static_cast<std::uint32_t>(elem);
    i.last = static_cast<std::uint32_t>(last);
    i.write = w;
    i.proxy = proxy_name(r.proxy);
    i.at = where(r.loc);
    i.step = r.step;
    return i;
  };
  BugReport b;
  b.kind = Verdict::race;
  b.title = "data race on " + range_words(name_, elem_size_, elem, last + 1 - elem);
  b.accesses = {info(prior, prior_write), info(now, write)};
  const Agent& self = *ex.self();
  const bool clock_orders = self.clock.covers(Epoch{prior.agent, prior.time});
  // Ordered for the generic proxy but not for now's: the hint says which fence.
  b.details.push_back(
      clock_orders ? fmt::format("neither access happens before the other for the {} proxy",
                                 b.accesses[1].proxy)
                   : "neither access happens before the other");
  b.details.push_back(race_hint(ex, prior, prior_write, now, write, clock_orders));
  ex.fail(std::move(b));
}

void copy_elements(Region& dst, std::size_t dst_first, const Region& src, std::size_t src_first,
                   std::size_t n, Proxy proxy, const char* op, std::source_location loc) {
  if (dst.elem_size() != src.elem_size())
    throw ModelError(fmt::format("copy from {} to {}: element sizes differ", src.name(),
                                 dst.name()),
                     loc);
  src.check_bounds(src_first, n, loc);
  dst.check_bounds(dst_first, n, loc);
  const_cast<Region&>(src).access(src_first, n, false, proxy, op, loc);
  dst.access(dst_first, n, true, proxy, op, loc);
  std::memmove(dst.bytes() + dst_first * dst.elem_size(),
               src.bytes() + src_first * src.elem_size(), n * dst.elem_size());
}

}  // namespace heddle
