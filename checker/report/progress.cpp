#include "checker/report/progress.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>

namespace heddle {

ProgressMode detect_progress_mode(bool quiet) {
  if (quiet) return ProgressMode::off;
  return isatty(STDERR_FILENO) ? ProgressMode::terminal : ProgressMode::plain;
}

ProgressLine::ProgressLine(ProgressMode mode, double plain_interval, std::FILE* out)
    : mode_(mode),
      interval_(mode == ProgressMode::terminal ? 0.1 : plain_interval),
      out_(out),
      start_(Clock::now()) {
  // The first drawing waits a little on a terminal (short runs stay quiet)
  // and a whole interval in a log.
  auto first = mode == ProgressMode::terminal ? 0.3 : plain_interval;
  next_ = start_ + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(first));
}

ProgressLine::~ProgressLine() { finish(); }

double ProgressLine::elapsed() const {
  return std::chrono::duration<double>(Clock::now() - start_).count();
}

void ProgressLine::update(const std::function<std::string()>& text) {
  if (mode_ == ProgressMode::off) return;
  auto now = Clock::now();
  if (now < next_) return;
  next_ = now + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(interval_));
  if (mode_ == ProgressMode::terminal) {
    // Carriage return and "erase to end of line" redraw the line in place.
    fmt::print(out_, "\r\x1b[K{}", text());
    drawn_ = true;
  } else {
    fmt::print(out_, "{}\n", text());
  }
  std::fflush(out_);
}

void ProgressLine::finish() {
  if (mode_ == ProgressMode::terminal && drawn_) {
    fmt::print(out_, "\r\x1b[K");
    std::fflush(out_);
  }
  drawn_ = false;
}

std::string run_progress_text(std::uint64_t executions, std::uint32_t depth, double elapsed,
                              const RunConfig& config) {
  double rate = elapsed > 0 ? static_cast<double>(executions) / elapsed : 0;
  std::string budget;
  if (config.time_limit > 0)
    budget = fmt::format("{:.0f} s left", std::max(0.0, config.time_limit - elapsed));
  if (config.max_executions > 0) {
    auto left = config.max_executions > executions ? config.max_executions - executions : 0;
    budget += fmt::format("{}{} executions left", budget.empty() ? "" : ", ", left);
  }
  if (budget.empty()) budget = "none (runs until exhaustive)";
  return fmt::format("heddle: {} executions, {:.0f}/s, depth {}, {:.1f} s elapsed, budget: {}",
                     executions, rate, depth, elapsed, budget);
}

}  // namespace heddle
