// Kernel threads as Boost.Context fibers on pooled, guard-paged stacks.
#pragma once
#include <boost/context/fiber.hpp>
#include <boost/context/stack_context.hpp>
#include <array>
#include <atomic>
#include <csetjmp>
#include <csignal>
#include <exception>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

// AddressSanitizer must be told of every stack switch (fiber.cpp); its
// builds keep every switch out of line. GCC defines __SANITIZE_ADDRESS__;
// clang answers __has_feature(address_sanitizer). A translation unit built
// without ASan in an ASan program must still announce the switches it
// inlines: the build defines HEDDLE_ASAN for all of them (meson.build).
#if defined(HEDDLE_ASAN)
#elif defined(__SANITIZE_ADDRESS__)
#define HEDDLE_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define HEDDLE_ASAN 1
#endif
#endif

namespace heddle {

class Fiber;

namespace detail {
/// The fiber running on this OS thread (nullptr: none).
inline thread_local Fiber* running_fiber = nullptr;
/// This OS thread's side of the step watchdog (arm_step_watchdog), read
/// and written inline on every step: no call, no TLS wrapper.
struct StepWatch {
  std::atomic<std::uint64_t>* seq = nullptr;  // its slot's step count (nullptr: not armed)
  std::atomic<bool>* in_step = nullptr;       // its slot's "a step runs" flag
  volatile sig_atomic_t fired = 0;            // first strike this step (step_watchdog_fired)
  volatile sig_atomic_t strikes = 0;          // strikes this step
};
inline thread_local StepWatch step_watch;
}  // namespace detail

/// Raises all six sticky floating-point exception flags (MXCSR bits 0-5)
/// on the calling thread, when one is clear. Boost's x86-64 switch stores
/// MXCSR and loads the other side's, and a load that changes it stalls the
/// pipeline. Arithmetic only ever raises flags, so with all raised when a
/// fiber is made (its context copies its maker's) no switch changes MXCSR,
/// at no cost per switch or per body (bench/RESULTS.md, session 28). Models
/// therefore cannot test the flags (fetestexcept); one that lowers them
/// (feclearexcept, fesetenv) makes its own switches slower, not wrong.
inline void raise_fp_flags() noexcept {
#if defined(__x86_64__)
  const unsigned csr = __builtin_ia32_stmxcsr();
  if ((csr & 0x3Fu) != 0x3Fu) [[unlikely]]
    __builtin_ia32_ldmxcsr(csr | 0x3Fu);
#endif
}

/// A pool of mmap'd stacks, each with an inaccessible guard page below it,
/// and of idle fibers on them. Both are reused across executions, so a step
/// costs no mmap and a thread costs no new fiber.
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
  /// An idle fiber of this pool: a parked one when there is one, else a new one.
  std::unique_ptr<Fiber> take_fiber();
  /// Parks `f` for a later take_fiber() when it is idle (see Fiber::idle);
  /// otherwise destroys it (unwinding or abandoning its stack).
  void give_back(std::unique_ptr<Fiber> f) noexcept;

 private:
  struct Stack {
    char* base;
    std::size_t total;      // guard page included
    std::size_t color = 0;  // bytes left unused at the top (see allocate)
  };
  std::size_t bytes_;
  std::size_t page_;
  std::vector<Stack> all_;
  std::vector<Stack> free_;
  std::vector<std::unique_ptr<Fiber>> idle_;  // parked fibers, each on a stack of all_
};

/// Why a fiber stopped running abnormally (set by the signal handlers).
/// bad_access: SIGSEGV/SIGBUS outside a guard page (null or wild pointer);
/// arithmetic: SIGFPE (integer division by zero) or SIGILL.
enum class FiberFault { none, stack_overflow, timeout, abort, bad_access, arithmetic };

/// The address of the last bad_access or stack_overflow fault.
const void* last_fault_address() noexcept;

/// One fiber that runs bodies one after another: `start()` gives it a body,
/// `resume()` runs it until it suspends or the body returns; the fiber then
/// parks, idle, until it is started again (a pooled thread of the next
/// execution). A fiber that faults (stack overflow, runaway loop, abort())
/// is abandoned: its stack is leaked rather than unwound, because unwinding
/// it is unsafe. Destroying a fiber inside a body unwinds it (forced_unwind).
class Fiber {
 public:
  /// What a fiber runs: `entry(arg)`, until it returns.
  using Entry = void (*)(void*);

  explicit Fiber(StackPool& pool);
  ~Fiber();
  Fiber(const Fiber&) = delete;
  Fiber& operator=(const Fiber&) = delete;

  /// Sets the body the next resume() starts ([heddle bug] unless idle()).
  void start(Entry entry, void* arg);
  /// Runs the fiber until its next `suspend()` or the end of its body.
  /// Returns FiberFault::none on a normal switch back.
  FiberFault resume();
  /// Called from inside the fiber: switches back to the resumer. Inline, so
  /// that the switch sits in the model's own frame: every frame between a
  /// switch and the code that runs on after it costs a mispredicted return
  /// (the return stack holds the other stack's addresses), about as much as
  /// the switch itself (bench/RESULTS.md, issue 17).
  static void suspend() { detail::running_fiber->switch_out(); }

  // The controller's fast resume (Execution::run, without ASan): the caller
  // has set `point` with sigsetjmp in its own frame, then calls enter(point),
  // switch_in() (the switch, inline in the caller's frame) and leave(). A
  // fault in the fiber jumps to `point` instead; the caller then calls
  // faulted(why). Same effects as resume().
  /// Before the switch: a fault now jumps to `point`.
  void enter(sigjmp_buf* point) noexcept;
  /// Switches into the fiber until a fiber suspends back to the caller:
  /// this one or, after hand_to()s, the last one handed to (running_fiber).
  void switch_in() {
    boost::context::fiber back = std::move(context_).resume();
    detail::running_fiber->context_ = std::move(back);
  }
  /// From inside this fiber, after enter(): switches straight to the
  /// suspended fiber `next`, with no stop at the resumer. `next` takes over
  /// this fiber's resumer and enter() state (a fault, or its suspend(),
  /// goes where this fiber's would); this fiber stays suspended here until
  /// a switch_in() or hand_to() resumes it.
  /// `next` must be suspended in a switch (it ran before): a fiber never
  /// resumed has no switch to take over the resumer in.
  void hand_to(Fiber& next) {
    next.outer_point_ = outer_point_;
    next.outer_fiber_ = outer_fiber_;
    detail::running_fiber = &next;
    // A plain jump, not resume_with(): `next` takes our resumer, and files
    // our continuation when it arrives (take_resumer), which saves a run
    // of a function on top of its stack at every switch (bench/RESULTS.md).
    *next.caller_ = std::move(*caller_);
    next.handed_from_ = this;
    take_resumer(std::move(next.context_).resume());
    if (unwinding_) throw_unwind();
  }
  /// After a normal switch back.
  void leave() noexcept;
  /// After a fault jumped back to enter()'s point: the fiber is abandoned.
  void faulted(int why) noexcept;
  /// From inside the fiber: bytes of its stack below the caller's frame.
  std::size_t headroom() const noexcept {
    return static_cast<std::size_t>(static_cast<const char*>(__builtin_frame_address(0)) -
                                    static_cast<const char*>(stack_bottom_));
  }
  /// True once the current body has returned (or the fiber faulted).
  bool finished() const noexcept { return finished_; }
  bool faulted() const noexcept { return faulted_; }
  /// True when the fiber may take another body: not faulted, and not in the
  /// middle of one (never resumed since start(), or its body returned).
  bool idle() const noexcept { return !faulted_ && !in_body_; }

 private:
  friend struct FiberStackRef;
  /// Inside the fiber: switches to the resumer and back, announcing both
  /// stack switches to AddressSanitizer; throws FiberUnwind when destroyed.
  void switch_out() {
#ifdef HEDDLE_ASAN
    switch_out_announced();
#else
    take_resumer(std::move(*caller_).resume());
#endif
    if (unwinding_) throw_unwind();
  }
  /// On arrival from a switch: files `from`, the continuation that switched
  /// here, as the resumer's, or as the handing fiber's own (hand_to).
  void take_resumer(boost::context::fiber&& from) noexcept {
    if (handed_from_ == nullptr) {
      *caller_ = std::move(from);
      return;
    }
    handed_from_->context_ = std::move(from);
    handed_from_ = nullptr;
  }
  /// switch_out() with the switches announced to AddressSanitizer.
  void switch_out_announced();
  [[noreturn]] static void throw_unwind();
  /// Inside the fiber, on arrival: announces the switch to ASan.
  void arrived() noexcept;

  StackPool& pool_;
  boost::context::fiber context_;     // the suspended fiber (empty while running)
  boost::context::fiber* caller_ = nullptr;  // where suspend() returns to
  Entry entry_ = nullptr;
  void* arg_ = nullptr;
  bool in_body_ = false;   // resumed into the body, which has not returned yet
  bool finished_ = false;
  bool faulted_ = false;
  bool unwinding_ = false;  // set by the destructor: leave the body and return
  // For AddressSanitizer's fiber API: this fiber's stack, the resumer's
  // stack, and each side's fake-stack handle while it is switched away.
  const void* stack_bottom_ = nullptr;
  std::size_t stack_size_ = 0;
  const void* caller_bottom_ = nullptr;
  std::size_t caller_size_ = 0;
  void* fake_stack_ = nullptr;
  // enter()'s saved state, restored by leave() or faulted().
  sigjmp_buf* outer_point_ = nullptr;
  Fiber* outer_fiber_ = nullptr;
  Fiber* handed_from_ = nullptr;  // set by hand_to until this fiber arrives
};

/// Thrown inside a fiber that is being destroyed, to unwind its body; model
/// code must let it pass (catch (...) blocks rethrow it).
struct FiberUnwind {};

/// While alive, SIGSEGV/SIGBUS/SIGABRT/SIGALRM inside a fiber become a
/// FiberFault; the previous handlers (a test framework's, say) come back after.
/// Every thread that runs fibers holds one (it gives the thread its signal stack).
class FaultHandlers {
 public:
  FaultHandlers();
  ~FaultHandlers();
  FaultHandlers(const FaultHandlers&) = delete;
  FaultHandlers& operator=(const FaultHandlers&) = delete;

 private:
  static constexpr std::array<int, 6> kSignals{SIGSEGV, SIGBUS, SIGABRT, SIGALRM, SIGFPE, SIGILL};
  std::array<struct sigaction, 6> old_{};
  static constexpr std::size_t kAltStackBytes = 64 * 1024;
  std::unique_ptr<char[]> altstack_;
  stack_t old_stack_{};
  std::terminate_handler old_terminate_ = nullptr;
};
/// Arms the runaway-step watchdog for the calling thread: a fiber step longer
/// than `seconds` is first asked to stop (step_watchdog_fired), then abandoned.
void arm_step_watchdog(double seconds);
/// Marks the start of a fiber step for the watchdog (two relaxed stores).
inline void watchdog_enter_step() noexcept {
  detail::StepWatch& w = detail::step_watch;
  w.fired = 0;
  w.strikes = 0;
  if (w.seq == nullptr) return;
  // Only this thread writes seq: a plain relaxed store avoids a locked RMW.
  w.seq->store(w.seq->load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  w.in_step->store(true, std::memory_order_relaxed);
}
/// Marks the end of a fiber step.
inline void watchdog_leave_step() noexcept {
  if (detail::step_watch.in_step != nullptr)
    detail::step_watch.in_step->store(false, std::memory_order_relaxed);
}
/// True once the watchdog has fired for the current step (soft check).
inline bool step_watchdog_fired() noexcept { return detail::step_watch.fired != 0; }
/// True while a fiber runs (user code: a thread step, setup, an exit check).
bool in_fiber() noexcept;
/// Installs what runs when model code calls exit(): it gets exit's status and
/// must not return (it reports the misuse and ends the process).
void set_model_exit_hook(void (*hook)(int status));

}  // namespace heddle
