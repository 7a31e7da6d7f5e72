// The CI job's process pool: each case runs as `EXE run KERNEL ...` in its
// own process, so a model that crashes or hangs cannot take the job down.
#include <fcntl.h>
#include <fmt/format.h>
#include <spawn.h>
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
#include "checker/report/progress.hpp"

extern char** environ;

namespace heddle {
namespace {
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

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
// report names it in its replay hint).
pid_t spawn_case(const std::string& exe, const std::string& program,
                 const std::vector<std::string>& args, const fs::path& out, const fs::path& err) {
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  std::vector<char*> argv{const_cast<char*>(program.c_str())};
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  pid_t pid = 0;
  int rc = posix_spawn(&pid, exe.c_str(), &fa, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0)
    throw UsageError(fmt::format("cannot start {}: {}", exe, std::strerror(rc)));
  return pid;
}

void collect(const Running& r, int status, const CiOptions& o, CiOutcome& out) {
  out.seconds = std::chrono::duration<double>(Clock::now() - r.start).count();
  out.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
  out.timed_out = r.killed;
  out.output = slurp(r.out);
  out.errors = slurp(r.err);
  if (fs::exists(r.summary)) out.summary = read_summary(slurp(r.summary));
  // Only a run that found its bug (exit 1) wrote a whole schedule.
  if (!o.artifacts.empty() && out.exit_code == 1 && fs::exists(r.schedule))
    out.artifact = r.schedule.string();
  classify(out);
}

std::string progress_text(std::size_t done, std::size_t total, std::size_t failed,
                          const std::vector<Running>& running,
                          const std::vector<CiCase>& cases, double elapsed) {
  std::vector<std::string> names;
  for (const auto& r : running) names.push_back(cases[r.index].id());
  return fmt::format("heddle: {}/{} cases done, {} failed, {:.1f} s elapsed{}{}", done, total,
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
  while (done < cases.size()) {
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
      collect(*it, status, o, outs[it->index]);
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
