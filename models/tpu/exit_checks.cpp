// Kernel-exit checks of the TPU model: every DMA started must have been
// waited, and every semaphore must be back at zero. JAX interpret mode
// prints only the first non-zero semaphore and drops never-waited DMAs;
// here every one is reported, each with its source line.
#include <fmt/format.h>

#include "models/tpu/dma.hpp"
#include "models/tpu/mesh.hpp"
#include "models/tpu/semaphore.hpp"

namespace heddle::tpu {
namespace {

// What is missing of one DMA, or "" when it completed and was waited.
std::string dma_problem(const DmaRecord& r) {
  std::vector<std::string> missing;
  if (r.remote) {
    if (!r.sent) missing.push_back("it never ran (no wait needed it)");
    else if (!r.received) missing.push_back("its data never arrived (no wait needed it)");
    if (!r.send_waited)
      missing.push_back(fmt::format(".wait_send() on {}", r.send_sem->name()));
    if (!r.recv_waited)
      missing.push_back(fmt::format(".wait_recv() on {}", r.recv_sem->name()));
  } else {
    if (!r.received) missing.push_back("it never ran (no wait needed it)");
    if (!r.recv_waited && !r.send_waited)
      missing.push_back(fmt::format(".wait() on {}", r.send_sem->name()));
  }
  if (missing.empty()) return "";
  return fmt::format("{} started at {} was never waited: missing {}", r.agent, where(r.start),
                     fmt::join(missing, ", "));
}

}  // namespace

void Mesh::exit_checks() {
  std::vector<std::string> problems;
  std::size_t unwaited = 0, nonzero = 0;
  for (const auto& r : dmas_) {
    auto p = dma_problem(*r);
    if (p.empty()) continue;
    problems.push_back(std::move(p));
    ++unwaited;
  }
  for (const auto* s : semaphores_) {
    if (s->count() == 0) continue;
    ++nonzero;
    problems.push_back(fmt::format(
        "semaphore {} holds {} at kernel exit, not 0{}", s->name(), s->count(),
        s->kind() == SemKind::dma ? " (bytes of DMAs nobody waited for)"
                                  : " (a signal nobody waited for)"));
  }
  if (problems.empty()) return;
  std::vector<std::string> parts;
  if (unwaited) parts.push_back(fmt::format("{} DMA{} never waited", unwaited, unwaited == 1 ? "" : "s"));
  if (nonzero)
    parts.push_back(fmt::format("{} semaphore{} with a non-zero count", nonzero,
                                nonzero == 1 ? "" : "s"));
  problems.push_back("every DMA must be waited (.wait(), .wait_send(), .wait_recv()) and every "
                     "semaphore signal consumed before the kernel returns");
  Execution::current().fail(Verdict::async_error,
                            fmt::format("unfinished async operations at kernel exit: {}",
                                        fmt::join(parts, ", ")),
                            std::move(problems));
}

}  // namespace heddle::tpu
