// Pallas TPU DMAs: local async copies and remote (device to device) copies.
// A started DMA is an async agent. A local copy has one phase (read the
// source, write the destination, add the bytes to its semaphore); a remote
// copy has a send phase on the sender (read the source, signal send_sem)
// and a receive phase on the receiver (write the destination, signal
// recv_sem). Several DMAs in flight complete in any order: the controller
// chooses, so out-of-order completion is explored, not assumed away.
#pragma once
#include <cstdint>
#include <source_location>
#include <string>
#include <vector>

#include "models/tpu/memory.hpp"
#include "models/tpu/semaphore.hpp"

namespace heddle::tpu {

/// One started DMA: what it moves, its semaphores, how far it has got and
/// whether it was waited. Owned by the mesh; the exit checks read it.
struct DmaRecord {
  std::string agent;                 // the async agent's name (eager: the start's)
  std::source_location start;        // where .start() was called
  bool remote = false;
  Place src, dst;
  TpuSemaphore* send_sem = nullptr;  // local copy: its only semaphore
  TpuSemaphore* recv_sem = nullptr;  // remote copy: on the receiver
  std::uint32_t bytes = 0;
  bool sent = false;                 // source read, send_sem signalled
  bool received = false;             // destination written, recv_sem signalled
  bool send_waited = false;          // a wait consumed the send_sem signal
  bool recv_waited = false;          // a wait consumed the recv_sem signal (local: .wait())
  std::vector<std::byte> staging;    // bytes read by the send phase
};

/// A local DMA descriptor (pltpu.make_async_copy(src, dst, sem)).
class AsyncCopy {
 public:
  AsyncCopy(Place src, Place dst, TpuSemaphore& sem, std::source_location loc);
  /// Starts the copy: an async agent (dma_order=any), done now (eager) or
  /// when a wait needs it (on_wait).
  void start(std::source_location loc = std::source_location::current());
  /// Blocks until the semaphore holds the copy's bytes, then subtracts them.
  void wait(std::source_location loc = std::source_location::current());
  std::uint32_t bytes() const noexcept { return bytes_; }

 private:
  Place src_, dst_;
  TpuSemaphore* sem_;
  std::uint32_t bytes_;
  DmaRecord* started_ = nullptr;
};

/// A remote DMA descriptor (pltpu.make_async_remote_copy).
class AsyncRemoteCopy {
 public:
  AsyncRemoteCopy(Place src, Place dst, TpuSemaphore& send_sem, TpuSemaphore& recv_remote,
                  TpuSemaphore& recv_here, std::uint32_t target, std::source_location loc);
  /// Starts the send to the target device.
  void start(std::source_location loc = std::source_location::current());
  /// Sender side: blocks until send_sem holds the bytes (the source was read).
  void wait_send(std::source_location loc = std::source_location::current());
  /// Receiver side: blocks until this device's recv_sem holds the bytes.
  void wait_recv(std::source_location loc = std::source_location::current());
  /// Both sides, as Pallas's .wait(): wait_send() then wait_recv().
  void wait(std::source_location loc = std::source_location::current()) {
    wait_send(loc);
    wait_recv(loc);
  }
  std::uint32_t bytes() const noexcept { return bytes_; }
  std::uint32_t target() const noexcept { return target_; }

 private:
  Place src_, dst_;
  TpuSemaphore* send_sem_;
  TpuSemaphore* recv_remote_;  // signalled by this copy, on the target
  TpuSemaphore* recv_here_;    // waited by wait_recv, on this device
  std::uint32_t target_;
  std::uint32_t bytes_;
  DmaRecord* started_ = nullptr;
};

/// Resolves refs for the running thread and checks that the copy is well formed.
AsyncCopy make_copy(const Place& src, const Place& dst, const Sem& sem, std::source_location loc);

/// pltpu.make_async_copy(src, dst, sem): a copy between this core's memories.
template <class T>
AsyncCopy make_async_copy(const Ref<T>& src, const Ref<T>& dst, const Sem& sem,
                          std::source_location loc = std::source_location::current()) {
  return make_copy(src.place(loc), dst.place(loc), sem, loc);
}

/// Starts a copy between this core's memories and waits for it (sync_copy).
void sync_copy_place(const Place& src, const Place& dst, std::source_location loc);

/// pltpu.sync_copy(src, dst): make_async_copy on a run_scoped DMA semaphore,
/// started and waited at once. The core's later accesses are ordered after
/// the copy's read and write; other cores' unordered accesses race with them.
template <class T>
void sync_copy(const Ref<T>& src, const Ref<T>& dst,
               std::source_location loc = std::source_location::current()) {
  sync_copy_place(src.place(loc), dst.place(loc), loc);
}

/// Resolves a remote copy for the running thread (dst and recv_sem on `device_id`).
AsyncRemoteCopy make_remote_copy(const Place& src, const Place& dst, const Sem& send_sem,
                                 const Sem& recv_sem, std::uint32_t device_id,
                                 std::source_location loc);

/// pltpu.make_async_remote_copy(src, dst, send_sem, recv_sem, device_id):
/// copies this device's src into dst on `device_id` (same core index).
template <class T>
AsyncRemoteCopy make_async_remote_copy(const Ref<T>& src, const Ref<T>& dst, const Sem& send_sem,
                                       const Sem& recv_sem, std::uint32_t device_id,
                                       std::source_location loc = std::source_location::current()) {
  auto here = Mesh::current().here(loc);
  Ref<T> remote = dst.pinned() ? dst : dst.at_device(device_id, here.core);
  return make_remote_copy(src.place(loc), remote.place(loc), send_sem, recv_sem, device_id, loc);
}

}  // namespace heddle::tpu
