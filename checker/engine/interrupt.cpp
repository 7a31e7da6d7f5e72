#include "checker/engine/interrupt.hpp"

#include <atomic>
#include <csignal>
#include <string>

namespace heddle {
namespace {
// Lock-free, so that the handler may store to them (async-signal-safe).
std::atomic<int> g_signal{0};
std::atomic<int> g_count{0};
static_assert(std::atomic<int>::is_always_lock_free);

constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP};

extern "C" void on_interrupt(int sig) {
  int expected = 0;
  g_signal.compare_exchange_strong(expected, sig);  // the first signal names the interrupt
  if (g_count.fetch_add(1) + 1 >= 3) {
    std::signal(sig, SIG_DFL);  // a third one: the default action, now
    std::raise(sig);
  }
}
}  // namespace

void install_interrupt_handlers() {
  struct sigaction sa = {};
  sa.sa_handler = on_interrupt;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;  // reads and writes go on; the run checks the flag
  for (int sig : kSignals) sigaction(sig, &sa, nullptr);
}

int interrupt_signal() noexcept { return g_signal.load(std::memory_order_relaxed); }

void set_interrupt(int sig) noexcept {
  g_signal.store(sig);
  if (sig == 0) g_count.store(0);
}

std::string signal_name(int sig) {
  switch (sig) {
    case SIGINT: return "SIGINT";
    case SIGTERM: return "SIGTERM";
    case SIGHUP: return "SIGHUP";
    default: return "signal " + std::to_string(sig);
  }
}

}  // namespace heddle
