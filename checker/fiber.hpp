// Kernel threads as Boost.Context fibers on pooled, guard-paged stacks.
#pragma once
#include <boost/context/fiber.hpp>
#include <boost/context/stack_context.hpp>
#include <array>
#include <csetjmp>
#include <csignal>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace heddle {

/// A pool of mmap'd stacks, each with an inaccessible guard page below it.
/// Stacks are reused across executions, so a step costs no mmap.
class StackPool {
 public:
  explicit StackPool(std::size_t stack_bytes);
  ~StackPool();
  StackPool(const StackPool&) = delete;
  StackPool& operator=(const StackPool&) = delete;

  /// Boost.Context StackAllocator interface.
  boost::context::stack_context allocate();
  void deallocate(boost::context::stack_context& sc) noexcept;
  /// True when `addr` lies in the guard page of a stack of this pool.
  bool in_guard(const void* addr) const noexcept;
  std::size_t stack_bytes() const noexcept { return bytes_; }

 private:
  struct Stack { char* base; std::size_t total; };
  std::size_t bytes_;
  std::size_t page_;
  std::vector<Stack> all_;
  std::vector<Stack> free_;
};

/// Why a fiber stopped running abnormally (set by the signal handlers).
enum class FiberFault { none, stack_overflow, timeout, abort };

/// One fiber. `resume()` runs it until it suspends or finishes.
/// A fiber that faults (stack overflow, runaway loop, abort()) is abandoned:
/// its stack is leaked rather than unwound, because unwinding it is unsafe.
class Fiber {
 public:
  Fiber(StackPool& pool, std::function<void()> body);
  ~Fiber();
  Fiber(const Fiber&) = delete;
  Fiber& operator=(const Fiber&) = delete;

  /// Runs the fiber until its next `suspend()` or its end.
  /// Returns FiberFault::none on a normal switch back.
  FiberFault resume();
  /// Called from inside the fiber: switches back to the resumer.
  static void suspend();
  bool finished() const noexcept { return finished_; }
  bool faulted() const noexcept { return faulted_; }

 private:
  boost::context::fiber context_;     // the suspended fiber (empty while running)
  boost::context::fiber* caller_ = nullptr;  // where suspend() returns to
  std::function<void()> body_;
  bool finished_ = false;
  bool faulted_ = false;
};

/// While alive, SIGSEGV/SIGBUS/SIGABRT/SIGALRM inside a fiber become a
/// FiberFault; the previous handlers (a test framework's, say) come back after.
class FaultHandlers {
 public:
  FaultHandlers();
  ~FaultHandlers();
  FaultHandlers(const FaultHandlers&) = delete;
  FaultHandlers& operator=(const FaultHandlers&) = delete;

 private:
  static constexpr std::array<int, 4> kSignals{SIGSEGV, SIGBUS, SIGABRT, SIGALRM};
  std::array<struct sigaction, 4> old_{};
  stack_t old_stack_{};
};
/// Arms the runaway-step watchdog: a fiber step longer than `seconds` is
/// first asked to stop (step_watchdog_fired), then abandoned as a timeout.
void arm_step_watchdog(double seconds);
/// Marks the start of a fiber step for the watchdog (two relaxed stores).
void watchdog_enter_step() noexcept;
/// Marks the end of a fiber step.
void watchdog_leave_step() noexcept;
/// True once the watchdog has fired for the current step (soft check).
bool step_watchdog_fired() noexcept;

}  // namespace heddle
