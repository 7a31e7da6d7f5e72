#include "checker/engine/fiber.hpp"

#include <fmt/format.h>

#include <signal.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <memory>
#include <mutex>
#include <exception>
#include <chrono>
#include <cstdlib>
#include <new>
#include <stdexcept>
#include <pthread.h>
#include <thread>

#include "checker/engine/errors.hpp"
#include "checker/engine/guarded.hpp"

// AddressSanitizer must be told of every stack switch (its fiber API, in
// sanitizer/common_interface_defs.h), or it takes a fiber stack for a
// corrupt thread stack at the first exception (HEDDLE_ASAN: fiber.hpp).
#ifdef HEDDLE_ASAN
#include <sanitizer/common_interface_defs.h>
#include <sanitizer/lsan_interface.h>
#endif

namespace heddle {
namespace {

// Announces a switch to the stack [bottom, bottom+size); `fake` keeps the
// leaving side's fake stack (nullptr: the leaving fiber never comes back).
inline void asan_start([[maybe_unused]] void** fake, [[maybe_unused]] const void* bottom,
                       [[maybe_unused]] std::size_t size) noexcept {
#ifdef HEDDLE_ASAN
  __sanitizer_start_switch_fiber(fake, bottom, size);
#endif
}
// Completes a switch on the arriving side; stores the stack it came from.
inline void asan_finish([[maybe_unused]] void* fake, [[maybe_unused]] const void** from_bottom,
                        [[maybe_unused]] std::size_t* from_size) noexcept {
#ifdef HEDDLE_ASAN
  __sanitizer_finish_switch_fiber(fake, from_bottom, from_size);
#endif
}

// State shared with the signal handlers, one per thread (faults and the
// watchdog's signal arrive on the thread whose fiber runs); one fiber runs
// at a time per thread.
struct FaultState {
  sigjmp_buf* resume_point = nullptr;  // set while a fiber runs
  const StackPool* pool = nullptr;     // pool of the running fiber
  const void* address = nullptr;       // of the last memory fault
};
thread_local FaultState t_fault;
void (*g_exit_hook)(int) = nullptr;

// std::terminate in model code (an exception out of a noexcept function):
// abort() at once, which the fiber reports, without the default handler's
// message (it says "terminate called recursively" from the second time on).
void on_terminate() {
  if (t_fault.resume_point != nullptr) std::abort();
  std::set_terminate(nullptr);  // the default handler
  std::terminate();
}

// Runs at exit(): model code that calls exit() inside a fiber is reported,
// not taken for heddle's own exit (which would pass for "no bug found").
void on_process_exit(int status, void*) {
  if (t_fault.resume_point != nullptr && g_exit_hook != nullptr) g_exit_hook(status);
}

void on_fault(int sig, siginfo_t* info, void*) {
  if (t_fault.resume_point == nullptr) {
    if (sig == SIGALRM) return;  // the watchdog fired between steps
    signal(sig, SIG_DFL);
    raise(sig);
    return;
  }
  FiberFault why = FiberFault::abort;
  if (sig == SIGSEGV || sig == SIGBUS) {
    // Inside a fiber every memory fault is the model's: a guard page hit
    // is a stack overflow, anything else a null or wild pointer.
    t_fault.address = info->si_addr;
    const bool guard = t_fault.pool != nullptr && t_fault.pool->in_guard(info->si_addr);
    why = guard ? FiberFault::stack_overflow : FiberFault::bad_access;
  } else if (sig == SIGFPE || sig == SIGILL) {
    why = FiberFault::arithmetic;
  } else if (sig == SIGALRM) {
    // First strike: ask the fiber to stop at its next memory access.
    // Second strike: it makes no accesses at all, so leave it.
    int strikes = detail::step_watch.strikes;
    detail::step_watch.strikes = strikes + 1;
    if (strikes == 0) {
      detail::step_watch.fired = 1;
      return;
    }
    why = FiberFault::timeout;
  }
  siglongjmp(*t_fault.resume_point, static_cast<int>(why));
}

}  // namespace

StackPool::StackPool(std::size_t stack_bytes)
    : page_(static_cast<std::size_t>(sysconf(_SC_PAGESIZE))) {
  bytes_ = (stack_bytes + page_ - 1) / page_ * page_;
}

StackPool::~StackPool() {
  idle_.clear();  // unwinds the parked fibers, which hands their stacks back
  for (auto& s : free_) munmap(s.base, s.total);
}

boost::context::stack_context StackPool::allocate() {
  Stack s;
  if (!free_.empty()) {
    s = free_.back();
    free_.pop_back();
  } else {
    s.total = bytes_ + page_;
    void* p = mmap(nullptr, s.total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    s.base = static_cast<char*>(p);
    mprotect(s.base, page_, PROT_NONE);  // guard page at the low end
    // Stack colouring: tops at the same offset in a page would put every
    // fiber's hot frames in the same L1 sets (they thrash at each switch),
    // so each stack's top moves down by its own multiple of 64 bytes.
    s.color = (all_.size() * 17 % 64) * 64;
    all_.push_back(s);
  }
  boost::context::stack_context sc;
  sc.size = s.total - page_ - s.color;
  sc.sp = s.base + s.total - s.color;
  return sc;
}

void StackPool::deallocate(boost::context::stack_context& sc) noexcept {
  char* top = static_cast<char*>(sc.sp);
  for (const auto& s : all_)
    if (top > s.base && top <= s.base + s.total) free_.push_back(s);
}

bool StackPool::in_guard(const void* addr) const noexcept {
  auto* a = static_cast<const char*>(addr);
  for (const auto& s : all_) {
    // A frame may skip a little past the guard; count a page of slack below.
    if (a >= s.base - page_ && a < s.base + page_) return true;
  }
  return false;
}

// Adapts a StackPool reference to Boost's by-value StackAllocator concept,
// noting the stack's bounds in the fiber for AddressSanitizer.
struct FiberStackRef {
  StackPool* pool;
  Fiber* fiber;
  boost::context::stack_context allocate() {
    boost::context::stack_context sc = pool->allocate();
    fiber->stack_bottom_ = static_cast<char*>(sc.sp) - sc.size;
    fiber->stack_size_ = sc.size;
    return sc;
  }
  void deallocate(boost::context::stack_context& sc) noexcept { pool->deallocate(sc); }
};


Fiber::Fiber(StackPool& pool) : pool_(pool) {
  // The new fiber starts with its maker's MXCSR, raised here: the maker (a
  // controller) runs only heddle's code, which never lowers a flag again.
  raise_fp_flags();
  context_ = boost::context::fiber(
      std::allocator_arg, FiberStackRef{&pool, this},
      [this](boost::context::fiber&& caller) -> boost::context::fiber {
        caller_ = &caller;
        arrived();
        // One body per start(); between bodies the fiber parks here. The
        // destructor resumes it with unwinding_ set: FiberUnwind leaves the
        // body (or the park), and the fiber returns to its resumer.
        try {
          while (!unwinding_) {
            in_body_ = true;
            entry_(arg_);
            in_body_ = false;
            finished_ = true;
            switch_out();
          }
        } catch (const FiberUnwind&) {
        }
        in_body_ = false;
        asan_start(nullptr, caller_bottom_, caller_size_);  // this stack is done
        return std::move(*caller_);
      });
}

Fiber::~Fiber() {
  // A faulted fiber's stack is in an unknown state: it is never unwound,
  // only abandoned (its handle is already empty: resume() moved it out).
  // Unwinding is ours, not Boost's forced_unwind, so that every switch is
  // announced to AddressSanitizer.
  if (faulted_ || !context_) return;
  unwinding_ = true;
  resume();
}

void Fiber::arrived() noexcept { asan_finish(fake_stack_, &caller_bottom_, &caller_size_); }

void Fiber::switch_out_announced() {
  asan_start(&fake_stack_, caller_bottom_, caller_size_);
  *caller_ = std::move(*caller_).resume();
  arrived();
}

void Fiber::throw_unwind() { throw FiberUnwind{}; }

void Fiber::start(Entry entry, void* arg) {
  if (!idle()) throw std::logic_error("[heddle bug] a fiber was started while it runs a body");
  entry_ = entry;
  arg_ = arg;
  finished_ = false;
}

std::unique_ptr<Fiber> StackPool::take_fiber() {
  if (idle_.empty()) return std::make_unique<Fiber>(*this);
  std::unique_ptr<Fiber> f = std::move(idle_.back());
  idle_.pop_back();
  return f;
}

void StackPool::give_back(std::unique_ptr<Fiber> f) noexcept {
  if (f && f->idle()) idle_.push_back(std::move(f));
}

FiberFault Fiber::resume() {
  sigjmp_buf here;
  sigjmp_buf* outer = t_fault.resume_point;
  Fiber* outer_fiber = detail::running_fiber;
  // No mask save: the handlers run with SA_NODEFER, so nothing is blocked.
  void* fake = nullptr;  // the resumer's fake stack while the fiber runs
  int why = sigsetjmp(here, 0);
  if (why != 0) {
    // Back from the signal handler: on the resumer's stack again, leaving
    // the faulted fiber for good.
    asan_start(nullptr, caller_bottom_, caller_size_);
    asan_finish(fake, nullptr, nullptr);
#ifdef HEDDLE_ASAN
    // Objects reachable from the abandoned stack are not leaks.
    __lsan_register_root_region(stack_bottom_, stack_size_);
#endif
    t_fault.resume_point = outer;
    detail::running_fiber = outer_fiber;
    faulted_ = true;
    finished_ = true;
    return static_cast<FiberFault>(why);
  }
  t_fault.resume_point = &here;
  t_fault.pool = &pool_;
  detail::running_fiber = this;
  asan_start(&fake, stack_bottom_, stack_size_);
  context_ = std::move(context_).resume();
  asan_finish(fake, nullptr, nullptr);
  t_fault.resume_point = outer;
  detail::running_fiber = outer_fiber;
  return FiberFault::none;
}

void Fiber::enter(sigjmp_buf* point) noexcept {
  outer_point_ = t_fault.resume_point;
  outer_fiber_ = detail::running_fiber;
  t_fault.resume_point = point;
  t_fault.pool = &pool_;
  detail::running_fiber = this;
}

void Fiber::leave() noexcept {
  t_fault.resume_point = outer_point_;
  detail::running_fiber = outer_fiber_;
}

void Fiber::faulted(int) noexcept {
  // As resume() does after a fault (no ASan here: its builds never enter()).
  t_fault.resume_point = outer_point_;
  detail::running_fiber = outer_fiber_;
  faulted_ = true;
  finished_ = true;
}

FaultHandlers::FaultHandlers() : altstack_(new char[kAltStackBytes]) {
  // One alternate stack per thread that runs fibers (each builds its own
  // FaultHandlers): the handler must not run on the overflowed fiber stack.
  stack_t ss{};
  ss.ss_sp = altstack_.get();
  ss.ss_size = kAltStackBytes;
  sigaltstack(&ss, &old_stack_);
  struct sigaction sa{};
  sa.sa_sigaction = on_fault;
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
  sigemptyset(&sa.sa_mask);
  for (std::size_t i = 0; i < kSignals.size(); ++i) sigaction(kSignals[i], &sa, &old_[i]);
  static std::once_flag exit_watched;
  std::call_once(exit_watched, [] { on_exit(on_process_exit, nullptr); });
  old_terminate_ = std::set_terminate(on_terminate);
}

FaultHandlers::~FaultHandlers() {
  std::set_terminate(old_terminate_);
  for (std::size_t i = 0; i < kSignals.size(); ++i) sigaction(kSignals[i], &old_[i], nullptr);
  sigaltstack(&old_stack_, nullptr);
}

namespace {
// A helper thread that interrupts a fiber step running longer than the
// limit, on every thread that armed it (one slot each). The run loop only
// bumps its slot's sequence number per step, so it costs no syscall.
// A cache line each: every step of a worker thread writes its own slot,
// and slots sharing a line made two workers wait for each other.
struct alignas(64) WatchSlot {
  std::atomic<std::uint64_t> seq{0};
  std::atomic<bool> in_step{false};
  std::atomic<bool> used{false};
  pthread_t target{};
};
struct Watchdog {
  std::array<WatchSlot, 256> slots;
  std::atomic<double> limit{0};
  std::mutex mu;  // claiming a slot, starting the helper thread
  bool started = false;
};
Watchdog g_watchdog;

// This thread's slot, given back when the thread ends.
struct SlotLease {
  WatchSlot* slot = nullptr;
  ~SlotLease();
};
thread_local SlotLease t_lease;

SlotLease::~SlotLease() {
  if (slot == nullptr) return;
  std::lock_guard lock(g_watchdog.mu);  // never signalled once gone
  slot->used.store(false);
  detail::step_watch.seq = nullptr;  // the slot may go to another thread now
  detail::step_watch.in_step = nullptr;
}

// After the first strike, how long a step has to stop at a memory access
// before the second: a step that makes accesses stops within microseconds,
// so a twentieth of the limit (at least 0.05 s, the loop's period) keeps a
// runaway's cost within 10% of --step-timeout (issue 54.6: it was 2x).
double strike_grace(double limit) { return std::min(limit, std::max(0.05, limit / 20)); }

void watchdog_loop() {
  std::array<std::uint64_t, 256> seen;
  seen.fill(~0ull);
  std::array<std::chrono::steady_clock::time_point, 256> since{};
  std::array<bool, 256> struck{};  // the step has had its first strike
  for (;;) {
    std::this_thread::sleep_for(std::chrono::milliseconds(25));
    auto now = std::chrono::steady_clock::now();
    const double limit = g_watchdog.limit.load();
    for (std::size_t i = 0; i < g_watchdog.slots.size(); ++i) {
      WatchSlot& w = g_watchdog.slots[i];
      if (!w.used.load()) continue;
      auto seq = w.seq.load();
      if (!w.in_step.load() || seq != seen[i]) {
        seen[i] = seq;
        since[i] = now;
        struck[i] = false;
        continue;
      }
      const double wait = struck[i] ? strike_grace(limit) : limit;
      if (limit > 0 && std::chrono::duration<double>(now - since[i]).count() > wait) {
        std::lock_guard lock(g_watchdog.mu);
        if (w.used.load()) pthread_kill(w.target, SIGALRM);
        since[i] = now;
        struck[i] = true;
      }
    }
  }
}
}  // namespace

void arm_step_watchdog(double seconds) {
  g_watchdog.limit = seconds;
  if (seconds <= 0 || t_lease.slot != nullptr) return;
  std::lock_guard lock(g_watchdog.mu);
  for (WatchSlot& w : g_watchdog.slots) {
    if (w.used.load()) continue;
    w.target = pthread_self();
    w.in_step.store(false);
    w.used.store(true);
    t_lease.slot = &w;
    detail::step_watch.seq = &w.seq;
    detail::step_watch.in_step = &w.in_step;
    break;
  }
  if (!g_watchdog.started) {
    g_watchdog.started = true;
    std::thread(watchdog_loop).detach();
  }
}

bool in_fiber() noexcept { return t_fault.resume_point != nullptr; }

namespace {
// The words for a fault in a guarded call (see guarded.hpp).
std::string fault_words(FiberFault why) {
  switch (why) {
    case FiberFault::stack_overflow: return "it overflowed the stack";
    case FiberFault::abort: return "it called abort()";
    case FiberFault::bad_access:
      return fmt::format("it made an invalid memory access at address {}", t_fault.address);
    case FiberFault::arithmetic: return "it raised an arithmetic fault (a division by zero?)";
    default: return "it faulted";
  }
}
}  // namespace

bool guarded_call(const std::function<bool()>& pred) {
  if (t_fault.resume_point != nullptr) return pred();  // in a fiber step: guarded already
  // Same protocol as Fiber::resume: the handlers siglongjmp here on a fault
  // or on the watchdog's second strike (no mask to save: SA_NODEFER). The
  // predicate's frames are abandoned, not unwound, as a faulted fiber's are.
  sigjmp_buf here;
  int why = sigsetjmp(here, 0);
  if (why != 0) {
    t_fault.resume_point = nullptr;
    watchdog_leave_step();
    if (static_cast<FiberFault>(why) == FiberFault::timeout) throw StepTimeout();
    throw std::runtime_error(fault_words(static_cast<FiberFault>(why)));
  }
  t_fault.resume_point = &here;
  watchdog_enter_step();
  bool result = false;
  try {
    result = pred();
  } catch (...) {
    t_fault.resume_point = nullptr;
    watchdog_leave_step();
    throw;
  }
  t_fault.resume_point = nullptr;
  watchdog_leave_step();
  return result;
}

void set_model_exit_hook(void (*hook)(int status)) { g_exit_hook = hook; }

const void* last_fault_address() noexcept { return t_fault.address; }

}  // namespace heddle
