// Live progress of long runs on stderr: redrawn in place on a terminal, a
// plain line every few seconds elsewhere (CI logs), nothing with --quiet.
#pragma once
#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <mutex>
#include <optional>
#include <string>

#include "checker/explore/explorer.hpp"

namespace heddle {

/// How progress is shown.
enum class ProgressMode { off, terminal, plain };

/// The mode for stderr: off when `quiet`, terminal when stderr is a tty, else plain.
ProgressMode detect_progress_mode(bool quiet);

/// A progress line that throttles itself: callers report as often as they
/// like, and the line is drawn only when due.
class ProgressLine {
 public:
  /// `plain_interval`: seconds between plain lines (terminal lines redraw every 0.1 s).
  ProgressLine(ProgressMode mode, double plain_interval = 5, std::FILE* out = stderr);
  ~ProgressLine();
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  /// Draws `text()` when a redraw is due; `text` is not called otherwise.
  /// Threads may call it at once: one of them draws, the others return.
  void update(const std::function<std::string()>& text);
  /// Erases the terminal line (before the final report is printed).
  void finish();
  /// Seconds since construction.
  double elapsed() const;
  ProgressMode mode() const noexcept { return mode_; }
  /// The columns a line may fill without wrapping: the terminal's width less
  /// one (the cursor's last column), read at each call; 0 (any) in plain mode.
  std::size_t columns() const;

 private:
  using Clock = std::chrono::steady_clock;
  ProgressMode mode_;
  double interval_;  // seconds between two drawings
  std::FILE* out_;
  Clock::time_point start_;
  std::atomic<Clock::rep> next_;  // the next drawing is due then (ticks since the clock's epoch)
  std::mutex draw_mu_;            // one drawing at a time, and finish() after it
  bool drawn_ = false;            // a terminal line is on screen
};

/// A count that several threads add to without sharing a cache line: each
/// thread adds to a slot of its own (a split run's workers count their
/// executions at once; one shared counter made them wait for each other).
class ThreadCount {
 public:
  void add() noexcept { slots_[slot()].n.fetch_add(1, std::memory_order_relaxed); }
  std::uint64_t total() const noexcept;

 private:
  /// This thread's slot (threads take them in turn; more threads than slots share).
  static std::size_t slot() noexcept;
  struct alignas(64) Slot {
    std::atomic<std::uint64_t> n{0};
  };
  static constexpr std::size_t kSlots = 16;
  std::array<Slot, kSlots> slots_;
};

/// Estimates the number of executions of a dfs exploration while it runs,
/// with the weighted backtrack estimator (Kilby, Slaney, Thiebaux, Walsh,
/// "Estimating Search Tree Size", AAAI 2006, section 3), Knuth's estimator
/// (Math. Comp. 29, 1975) applied to the leaves a depth-first search
/// visits: with P_i the product of the branching factors on leaf i's path,
/// n leaves seen estimate n / sum(1/P_i) in all.
class TreeEstimate {
 public:
  /// Wraps the run's strategy to read each pick's branching (RunConfig::decorate).
  StrategyDecorator decorator();
  /// The estimated number of executions in all; nullopt before the first.
  std::optional<double> total() const;
  /// Called by the decorator: one decision with `options` branches.
  void branch(std::uint32_t options);
  /// Called by the decorator: the execution (a leaf) ended.
  void leaf();

 private:
  double log_path_ = 0;     // log P of the current execution's path
  double inverse_sum_ = 0;  // sum of 1/P_i over the leaves seen
  std::uint64_t leaves_ = 0;
};

/// What a run's progress line says.
struct RunProgress {
  std::string run;                      // "KERNEL" or "KERNEL (k=v ...)"
  std::uint64_t executions = 0;
  std::uint32_t depth = 0;              // steps of the last execution
  double elapsed = 0;                   // seconds
  std::optional<double> estimated;      // total executions (dfs), when estimated
};

/// The progress text of one kernel's run: kernel and parameters, executions,
/// executions/s, depth of the last execution, elapsed time, the estimated
/// work left (or "unknown" for an exhaustive strategy without an estimator)
/// and what is left of the budget. A run with no budget that is still going
/// after `unbounded_after` seconds says it may not end. With `columns` > 0
/// the text fits that many columns: the least useful parts go first, in short
/// forms, and the run's name is cut last.
std::string run_progress_text(const RunProgress& p, const RunConfig& config,
                              double unbounded_after = 60, std::size_t columns = 0);

/// `text` cut to `columns` (0: unchanged), ending in "..." when cut.
std::string fit_columns(std::string text, std::size_t columns);

}  // namespace heddle
