// Memory regions that hold real bytes, with shadow state for race detection.
#pragma once
#include <boost/container/small_vector.hpp>
#include <cstdint>
#include <cstring>
#include <source_location>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "checker/engine/access_record.hpp"
#include "checker/engine/errors.hpp"
#include "checker/engine/ids.hpp"

namespace heddle {

class Execution;

/// The error for a heddle object used after its execution ended.
ModelError stale_object_error(const char* what, std::source_location loc);

/// Shadow state of one element: the last write and the reads since it.
struct ShadowCell {
  AccessRecord write;
  boost::container::small_vector<AccessRecord, 1> reads;
};

/// Most bytes one buffer (region) may hold.
inline constexpr std::size_t kMaxRegionBytes = std::size_t{1} << 30;

/// A named memory region of `count` elements of `elem_size` bytes.
/// Plain accesses are invisible (no scheduling point) and race-checked.
/// Its bytes and shadow state are reused by the next execution's region
/// of the same object index and size (cleared where they were used).
class Region {
 public:
  /// Every element starts as `init` (elem_size bytes), or zero without it.
  Region(std::string name, std::size_t elem_size, std::size_t count, const void* init = nullptr);
  Region(const Region&) = delete;
  Region& operator=(const Region&) = delete;
  /// Hands the storage, cleared, to the next execution on this OS thread.
  ~Region();

  const std::string& name() const noexcept { return name_; }
  ObjectId id() const noexcept { return id_; }
  std::size_t elem_size() const noexcept { return elem_size_; }
  std::size_t size() const noexcept { return count_; }
  /// The bytes, to write (or read); the storage is cleared before reuse.
  std::byte* bytes() noexcept {
    written_ = true;
    return bytes_.data();
  }
  /// The bytes, to read.
  const std::byte* bytes() const noexcept { return bytes_.data(); }

  /// Race-checks an access to elements [first, first+n) by the running agent
  /// and records it. `op` names the access in reports.
  void access(std::size_t first, std::size_t n, bool write, Proxy proxy, const char* op,
              std::source_location loc);
  /// Race-checks an atomic read-modify-write (a reduction) of [first, first+n):
  /// it races with unordered plain accesses, never with another atomic one.
  void reduce(std::size_t first, std::size_t n, Proxy proxy, const char* op,
              std::source_location loc);
  /// Throws ModelError when [first, first+n) is out of bounds.
  void check_bounds(std::size_t first, std::size_t n, std::source_location loc) const;
  /// Throws ModelError when the region belongs to an earlier execution.
  void check_current(std::source_location loc) const;

 private:
  /// access() and reduce(): checks [first, first+n) and records the access.
  void check_and_record(std::size_t first, std::size_t n, bool write, bool atomic, Proxy proxy,
                        const char* op, std::source_location loc);
  /// Reports a race on elements [elem, last] against `prior`.
  void race(const AccessRecord& prior, bool prior_write, std::size_t elem, std::size_t last,
            bool write, const AccessRecord& now);

  /// Takes the storage a region of this index and size left, or allocates
  /// it; then sets every element to `init` (zero when null).
  void take_storage(const void* init);

  std::string name_;
  ObjectId id_;
  std::uint64_t serial_ = 0;  // Execution::serial() of the execution that made it
  std::size_t elem_size_;
  std::size_t count_;  // elements (kept when the storage is handed on)
  std::vector<std::byte> bytes_;
  std::vector<ShadowCell> shadow_;
  // The shadow cells accesses may have changed: [touched_lo_, touched_hi_).
  std::size_t touched_lo_ = SIZE_MAX;
  std::size_t touched_hi_ = 0;
  bool written_ = false;  // bytes() handed out for writing: not all zero any more
};

/// A typed view of a region: element loads and stores go through the
/// race detector. Cheap to copy; the region is owned by the execution.
template <class T>
class Buffer {
  static_assert(std::is_trivially_copyable_v<T>, "buffers hold plain bytes");

 public:
  Buffer() = default;
  explicit Buffer(Region& r) : region_(&r) {}

  /// Reads element i (a plain, invisible load).
  T load(std::size_t i, std::source_location loc = std::source_location::current()) const {
    region_->check_bounds(i, 1, loc);
    region_->access(i, 1, false, Proxy::generic, "load", loc);
    return raw(i);
  }
  /// Writes element i (a plain, invisible store).
  void store(std::size_t i, T v, std::source_location loc = std::source_location::current()) {
    region_->check_bounds(i, 1, loc);
    region_->access(i, 1, true, Proxy::generic, "store", loc);
    std::memcpy(region_->bytes() + i * sizeof(T), &v, sizeof(T));
  }
  /// Reads element i without a race check (initial contents, final results).
  T raw(std::size_t i, std::source_location loc = std::source_location::current()) const {
    region_->check_bounds(i, 1, loc);
    T v;
    std::memcpy(&v, std::as_const(*region_).bytes() + i * sizeof(T), sizeof(T));
    return v;
  }
  /// Writes element i without a race check (initial contents from the host).
  void init(std::size_t i, T v, std::source_location loc = std::source_location::current()) {
    region_->check_bounds(i, 1, loc);
    region_->check_current(loc);
    std::memcpy(region_->bytes() + i * sizeof(T), &v, sizeof(T));
  }
  std::size_t size() const noexcept { return region_->size(); }
  Region& region() const noexcept { return *region_; }

 private:
  Region* region_ = nullptr;
};

/// Copies n elements between regions as the running agent (an async phase):
/// reads the source and writes the destination through the race detector.
void copy_elements(Region& dst, std::size_t dst_first, const Region& src, std::size_t src_first,
                   std::size_t n, Proxy proxy, const char* op, std::source_location loc);

}  // namespace heddle
