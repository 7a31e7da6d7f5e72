// Global and shared memory for GPU models: typed views with slices and
// tiles, and per-CTA shared allocations (a cluster's CTAs reach each other's).
#pragma once
#include <cstring>
#include <source_location>
#include <string>
#include <vector>

#include "checker/heddle.hpp"
#include "models/gpu/grid.hpp"

namespace heddle::gpu {

/// A typed window [first, first+count) of a memory region. Plain loads and
/// stores are generic-proxy accesses, invisible and race-checked.
template <class T>
class View {
 public:
  View() = default;
  View(Buffer<T> b, std::size_t first, std::size_t count) : buf_(b), first_(first), count_(count) {}

  std::size_t size() const noexcept { return count_; }
  std::size_t first() const noexcept { return first_; }
  Region& region() const noexcept { return buf_.region(); }
  /// The view of element i alone (Pallas ref.at[i]).
  View at(std::size_t i, std::source_location loc = std::source_location::current()) const {
    return slice(i, 1, loc);
  }
  /// Elements [first, first+n) of this view.
  View slice(std::size_t first, std::size_t n,
             std::source_location loc = std::source_location::current()) const {
    if (first + n > count_)
      throw ModelError(region().name() + ": slice out of bounds of its view", loc);
    return View(buf_, first_ + first, n);
  }
  /// Tile i of size n (elements [i*n, (i+1)*n)).
  View tile(std::size_t i, std::size_t n,
            std::source_location loc = std::source_location::current()) const {
    return slice(i * n, n, loc);
  }
  /// Plain load of element i.
  T load(std::size_t i = 0, std::source_location loc = std::source_location::current()) const {
    check(i, loc);
    return buf_.load(first_ + i, loc);
  }
  /// Plain store of element i.
  void store(std::size_t i, T v, std::source_location loc = std::source_location::current()) const {
    check(i, loc);
    Buffer<T> b = buf_;
    b.store(first_ + i, v, loc);
  }
  /// Plain stores of `v` to the whole view (one race check for the range).
  void fill(T v, std::source_location loc = std::source_location::current()) const {
    region().access(first_, count_, true, Proxy::generic, "store", loc);
    Buffer<T> b = buf_;
    for (std::size_t i = 0; i < count_; ++i) b.init(first_ + i, v);
  }
  /// Element i without a check (host contents, final results).
  T raw(std::size_t i = 0) const { return buf_.raw(first_ + i); }
  /// Writes element i without a check (initial contents written by the host).
  void init(std::size_t i, T v) const {
    Buffer<T> b = buf_;
    b.init(first_ + i, v);
  }
  /// The footprint entry of this view's bytes.
  Access touches(bool write) const {
    auto lo = static_cast<std::uint32_t>(first_ * sizeof(T));
    return Access{region().id(), lo, static_cast<std::uint32_t>(lo + count_ * sizeof(T)), write};
  }

 private:
  void check(std::size_t i, std::source_location loc) const {
    if (i >= count_) throw ModelError(region().name() + ": index out of bounds of its view", loc);
  }
  Buffer<T> buf_;
  std::size_t first_ = 0;
  std::size_t count_ = 0;
};

/// Global memory: a named array with a global address, initialised by the host.
template <class T>
View<T> global(std::string name, std::size_t n, T init = T{},
               std::source_location loc = std::source_location::current()) {
  Grid& g = current_grid(loc);  // before allocating: a misuse names the caller's line
  auto b = buffer<T>(std::move(name), n, init);
  g.map_global(b.region());
  return View<T>(b, 0, n);
}

/// One object per CTA (shared memory, mbarriers): local() is the caller's,
/// peer(rank) another CTA of the caller's cluster (DSMEM, mapa).
template <class T>
class PerCta {
 public:
  PerCta() = default;
  explicit PerCta(std::vector<T> per_cta) : per_cta_(std::move(per_cta)) {}
  const T& operator[](int cta) const { return per_cta_.at(cta); }
  const T& local(std::source_location loc = std::source_location::current()) const {
    return per_cta_.at(this_thread(loc).cta);
  }
  const T& peer(int rank, std::source_location loc = std::source_location::current()) const {
    const ThreadInfo& t = this_thread(loc);
    int cluster = current_grid().config().cluster;
    if (rank < 0 || rank >= cluster)
      throw ModelError("cluster rank " + std::to_string(rank) + " is outside the cluster", loc);
    return per_cta_.at(t.cta - t.rank + rank);
  }
  int ctas() const noexcept { return static_cast<int>(per_cta_.size()); }

 private:
  std::vector<T> per_cta_;
};

/// Shared memory: one array per CTA; converts to the caller's own view.
template <class T>
class Shared : public PerCta<View<T>> {
 public:
  using PerCta<View<T>>::PerCta;
  /// Inside a thread, a Shared<T> is its CTA's view (Pallas SMEM refs).
  operator View<T>() const { return this->local(); }  // NOLINT: implicit by design
};

/// Allocates `n` elements of shared memory in every CTA ("name" or "name@cta{c}").
template <class T>
Shared<T> shared(const std::string& name, std::size_t n, T init = T{},
                 std::source_location loc = std::source_location::current()) {
  int ctas = current_grid(loc).config().ctas;
  std::vector<View<T>> v;
  for (int c = 0; c < ctas; ++c) {
    auto b = buffer<T>(ctas == 1 ? name : name + "@cta" + std::to_string(c), n, init);
    v.emplace_back(b, 0, n);
  }
  return Shared<T>(std::move(v));
}

/// Creates one T per CTA with make<T>(name, args...); returns pointers.
template <class T, class... A>
PerCta<T*> per_cta(const std::string& name, const A&... args) {
  int ctas = current_grid().config().ctas;
  std::vector<T*> v;
  for (int c = 0; c < ctas; ++c)
    v.push_back(&make<T>(ctas == 1 ? name : name + "@cta" + std::to_string(c), args...));
  return PerCta<T*>(std::move(v));
}

}  // namespace heddle::gpu
