// The CI job's process pool: each case runs as `EXE run KERNEL ...` in its
// own process, so a model that crashes or hangs cannot take the job down.
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <csignal>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "checker/cli/ci_job.hpp"
#include "checker/engine/errors.hpp"
#include "checker/engine/interrupt.hpp"
#include "checker/engine/program_name.hpp"
#include "checker/report/progress.hpp"

extern char** environ;

namespace heddle {
namespace {
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
// Seconds the cases get, after an interrupt, to stop and write their summaries.
constexpr double kInterruptGrace = 10;

std::string slurp(const fs::path& p) {
  std::ifstream f(p);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

/// One case's process while it runs.
struct Running {
  std::size_t index = 0;
  pid_t pid = 0;
  Clock::time_point start;
  fs::path summary, schedule, out, err;
  bool killed = false;  // past o.case_timeout: sent SIGKILL
};

// Kills the cases that have run past the case timeout (a hung model or a
// hung heddle must not hang the CI job); their outcomes say so.
void kill_overdue(std::vector<Running>& running, const CiOptions& o) {
  if (o.case_timeout <= 0) return;
  for (auto& r : running) {
    if (r.killed) continue;
    if (std::chrono::duration<double>(Clock::now() - r.start).count() < o.case_timeout) continue;
    kill(r.pid, SIGKILL);
    r.killed = true;
  }
}

// Runs `exe` with argv[0] `program` (what the user typed: the case's
// report names it in its replay hint). The child stays in the job's
// process group (a terminal's Ctrl-C reaches it) and dies with the job
// (PR_SET_PDEATHSIG): a killed job leaves no case running (issue 51.7).
pid_t spawn_case(const std::string& exe, const std::string& program,
                 const std::vector<std::string>& args, const fs::path& out, const fs::path& err) {
  std::vector<char*> argv{const_cast<char*>(program.c_str())};
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  const pid_t parent = getpid();
  int ready[2];  // the child's exec errno comes back through it (closed on exec)
  if (pipe2(ready, O_CLOEXEC) != 0)
    throw UsageError(fmt::format("cannot start {}: {}", exe, std::strerror(errno)));
  const pid_t pid = fork();
  if (pid < 0) {
    int e = errno;
    close(ready[0]), close(ready[1]);
    throw UsageError(fmt::format("cannot start {}: {}", exe, std::strerror(e)));
  }
  if (pid == 0) {  // only async-signal-safe calls from here to exec
    int e = 0;
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent) _exit(127);
    int in = open("/dev/null", O_RDONLY);
    int o = open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int r = open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (in < 0 || o < 0 || r < 0 || dup2(in, STDIN_FILENO) < 0 || dup2(o, STDOUT_FILENO) < 0 ||
        dup2(r, STDERR_FILENO) < 0) {
      e = errno;
    } else {
      execve(exe.c_str(), argv.data(), environ);
      e = errno;
    }
    ssize_t ignored = write(ready[1], &e, sizeof e);
    (void)ignored;
    _exit(127);
  }
  close(ready[1]);
  int e = 0;
  ssize_t n;
  do n = read(ready[0], &e, sizeof e);
  while (n < 0 && errno == EINTR);
  close(ready[0]);
  if (n == static_cast<ssize_t>(sizeof e)) {
    waitpid(pid, nullptr, 0);
    throw UsageError(fmt::format("cannot start {}: {}", exe, std::strerror(e)));
  }
  return pid;
}

void collect(const Running& r, int status, const CiOptions& o, bool interrupted, CiOutcome& out) {
  out.seconds = std::chrono::duration<double>(Clock::now() - r.start).count();
  out.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
  out.interrupted = interrupted;
  out.timed_out = r.killed && !interrupted;
  out.output = slurp(r.out);
  out.errors = slurp(r.err);
  if (fs::exists(r.summary)) out.summary = read_summary(slurp(r.summary));
  // Only a run that found its bug (exit 1) wrote a whole schedule.
  if (!o.artifacts.empty() && (out.exit_code == 1 || interrupted) && fs::exists(r.schedule))
    out.artifact = r.schedule.string();
  classify(out);
}

// A case the interrupt kept from starting.
void not_run(const CiCase& c, int sig, CiOutcome& out) {
  out.c = c;
  out.interrupted = true;
  out.verdict = "not run";
  out.reason = fmt::format("not run: the job was interrupted ({})", signal_name(sig));
}

std::string progress_text(std::size_t done, std::size_t total, std::size_t failed,
                          const std::vector<Running>& running,
                          const std::vector<CiCase>& cases, double elapsed) {
  std::vector<std::string> names;
  for (const auto& r : running) names.push_back(cases[r.index].id());
  return fmt::format("{}: {}/{} cases done, {} failed, {:.1f} s elapsed{}{}", program_name(), done, total,
                     failed, elapsed, names.empty() ? "" : "; running: ",
                     fmt::join(names, ", "));
}
}  // namespace

std::vector<CiOutcome> run_cases(const std::string& exe, const std::vector<CiCase>& cases,
                                 const CiOptions& o) {
  std::string tmpl = (fs::temp_directory_path() / "heddle-ci-XXXXXX").string();
  if (mkdtemp(tmpl.data()) == nullptr)
    throw UsageError(fmt::format("cannot create a temporary directory in {}",
                                 fs::temp_directory_path().string()));
  const fs::path tmp = tmpl;
  std::vector<CiOutcome> outs(cases.size());
  std::vector<Running> running;
  std::size_t next = 0, done = 0, failed = 0;
  const unsigned jobs = std::max(1u, o.jobs);
  ProgressLine progress(detect_progress_mode(o.quiet), o.progress_interval);
  int forwarded = 0;            // the interrupt forwarded to the running cases
  Clock::time_point grace_end;  // then, when the cases still running are killed
  while (done < cases.size()) {
    if (int sig = interrupt_signal(); sig != 0 && forwarded == 0) {
      // Interrupted: start no case; the running ones stop at their next
      // step and write their summaries (they got the signal from a
      // terminal too, maybe: a second one is harmless, engine/interrupt.hpp).
      forwarded = sig;
      grace_end = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                     std::chrono::duration<double>(kInterruptGrace));
      for (const auto& r : running) kill(r.pid, sig);
      for (std::size_t k = next; k < cases.size(); ++k) not_run(cases[k], sig, outs[k]);
      done += cases.size() - next;
      next = cases.size();
      if (done == cases.size()) break;
    }
    if (forwarded != 0 && Clock::now() > grace_end)
      for (auto& r : running)
        if (!r.killed) kill(r.pid, SIGKILL), r.killed = true;
    while (next < cases.size() && running.size() < jobs) {
      Running r;
      r.index = next;
      r.start = Clock::now();
      const fs::path base = tmp / fmt::format("case{}", next);
      r.summary = base.string() + ".summary.json";
      r.out = base.string() + ".out";
      r.err = base.string() + ".err";
      r.schedule = o.artifacts.empty()
                       ? fs::path(base.string() + ".schedule.json")
                       : fs::path(o.artifacts) / (safe_file_name(cases[next].id()) + ".json");
      fs::remove(r.schedule);  // a stale artifact must not pass for this run's
      outs[next].c = cases[next];
      r.pid = spawn_case(exe, o.program, ci_case_args(cases[next], o, r.summary, r.schedule),
                         r.out, r.err);
      running.push_back(std::move(r));
      ++next;
    }
    int status = 0;
    pid_t pid = waitpid(-1, &status, WNOHANG);
    if (pid > 0) {
      auto it = std::find_if(running.begin(), running.end(), [&](auto& r) { return r.pid == pid; });
      if (it == running.end()) continue;  // not one of ours
      collect(*it, status, o, forwarded != 0, outs[it->index]);
      failed += !outs[it->index].passed;
      ++done;
      running.erase(it);
      continue;
    }
    if (pid < 0 && errno != EINTR && errno != ECHILD)
      throw std::runtime_error(fmt::format("[heddle bug] waitpid failed: {}", std::strerror(errno)));
    kill_overdue(running, o);
    progress.update([&] {
      return progress_text(done, cases.size(), failed, running, cases, progress.elapsed());
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  progress.finish();
  std::error_code ec;
  fs::remove_all(tmp, ec);
  return outs;
}

}  // namespace heddle
