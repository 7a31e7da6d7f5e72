// Interrupts (SIGINT, SIGTERM, SIGHUP): the handler only records which
// signal came; a run stops at its next step, reports what it covered
// ("interrupted after N executions ... (not exhaustive)"), writes its
// files and exits 128 + the signal (130, 143, 129).
#pragma once
#include <string>

namespace heddle {

/// Installs the handler for SIGINT, SIGTERM and SIGHUP. The third signal
/// ends the process at once (the default action), so a run that does not
/// stop can still be stopped; two are expected (a terminal's Ctrl-C reaches
/// a CI job's children and the job forwards it too).
void install_interrupt_handlers();

/// The signal that interrupted the run; 0 when none came.
int interrupt_signal() noexcept;

/// Records `sig` as if it had arrived (0 clears): tests and the CI job.
void set_interrupt(int sig) noexcept;

/// "SIGINT", "SIGTERM", "SIGHUP", else "signal N".
std::string signal_name(int sig);

/// The exit code of a run interrupted by `sig`: 128 + sig.
inline int interrupted_exit_code(int sig) { return 128 + sig; }

}  // namespace heddle
