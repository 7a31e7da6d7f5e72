#include "checker/report/progress.hpp"

#include <fmt/format.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <vector>

#include "checker/engine/program_name.hpp"
#include "checker/explore/forwarding.hpp"

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
  next_ = (start_ + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(first)))
              .time_since_epoch()
              .count();
}

ProgressLine::~ProgressLine() { finish(); }

double ProgressLine::elapsed() const {
  return std::chrono::duration<double>(Clock::now() - start_).count();
}

void ProgressLine::update(const std::function<std::string()>& text) {
  if (mode_ == ProgressMode::off) return;
  const Clock::rep now = Clock::now().time_since_epoch().count();
  Clock::rep due = next_.load(std::memory_order_relaxed);
  if (now < due) return;
  const Clock::rep later =
      now + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(interval_))
                .count();
  if (!next_.compare_exchange_strong(due, later)) return;  // another thread draws this one
  std::lock_guard lock(draw_mu_);
  if (mode_ == ProgressMode::terminal) {
    // Carriage return and "erase to end of line" redraw the line in place.
    fmt::print(out_, "\r\x1b[K{}", fit_columns(text(), columns()));
    drawn_ = true;
  } else {
    fmt::print(out_, "{}\n", text());
  }
  std::fflush(out_);
}

std::size_t ProgressLine::columns() const {
  if (mode_ != ProgressMode::terminal) return 0;
  winsize ws{};
  std::size_t width = 0;
  if (ioctl(fileno(out_), TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) width = ws.ws_col;
  if (width == 0)
    if (const char* env = std::getenv("COLUMNS")) width = std::strtoul(env, nullptr, 10);
  if (width == 0 || width > 4096) width = 80;
  return width - 1;  // a line filling the last column wraps on some terminals
}

void ProgressLine::finish() {
  std::lock_guard lock(draw_mu_);
  if (mode_ == ProgressMode::terminal && drawn_) {
    fmt::print(out_, "\r\x1b[K");
    std::fflush(out_);
  }
  drawn_ = false;
}

std::uint64_t ThreadCount::total() const noexcept {
  std::uint64_t sum = 0;
  for (const Slot& s : slots_) sum += s.n.load(std::memory_order_relaxed);
  return sum;
}

std::size_t ThreadCount::slot() noexcept {
  static std::atomic<std::size_t> threads{0};
  thread_local const std::size_t mine = threads.fetch_add(1) % kSlots;
  return mine;
}

namespace {
/// Forwards to the wrapped strategy, telling the estimate each decision's
/// number of branches (dfs branches on every enabled agent and data value).
class EstimatingStrategy final : public ForwardingStrategy {
 public:
  EstimatingStrategy(std::unique_ptr<Strategy> inner, TreeEstimate& e)
      : ForwardingStrategy(std::move(inner)), estimate_(e) {}
  AgentId pick(const Choice& c) override {
    estimate_.branch(static_cast<std::uint32_t>(c.enabled.size()));
    return ForwardingStrategy::pick(c);
  }
  std::uint32_t choose(std::uint32_t n, const ExecutionRecord& ex) override {
    estimate_.branch(n);
    return ForwardingStrategy::choose(n, ex);
  }
  void end_execution(const ExecutionRecord& ex) override {
    estimate_.leaf();
    ForwardingStrategy::end_execution(ex);
  }

 private:
  TreeEstimate& estimate_;
};

std::string count_text(double n) {
  if (n >= 1e12) return fmt::format("{:.1e}", n);
  return fmt::format("{:.0f}", n);
}
}  // namespace

StrategyDecorator TreeEstimate::decorator() {
  return [this](std::unique_ptr<Strategy> inner) -> std::unique_ptr<Strategy> {
    return std::make_unique<EstimatingStrategy>(std::move(inner), *this);
  };
}

void TreeEstimate::branch(std::uint32_t options) {
  if (options > 1) log_path_ += std::log(static_cast<double>(options));
}

void TreeEstimate::leaf() {
  inverse_sum_ += std::exp(-log_path_);  // underflows to 0 for paths beyond 1e308 leaves
  log_path_ = 0;
  ++leaves_;
}

std::optional<double> TreeEstimate::total() const {
  if (leaves_ == 0) return std::nullopt;
  return inverse_sum_ > 0 ? static_cast<double>(leaves_) / inverse_sum_
                          : std::numeric_limits<double>::infinity();
}

namespace {
/// One part of a progress line: its full and its short form, and the order
/// in which it is dropped when even the short forms do not fit (0: never).
struct Part {
  std::string full, brief;
  int drop = 0;
};

std::string join_parts(const std::string& head, const std::vector<Part>& parts, bool brief,
                       int dropped) {
  std::string out = head;
  for (const Part& part : parts) {
    if (part.drop != 0 && part.drop <= dropped) continue;
    const std::string& text = brief ? part.brief : part.full;
    if (!text.empty()) out += text;
  }
  return out;
}

std::vector<Part> progress_parts(const RunProgress& p, const RunConfig& config,
                                 double unbounded_after) {
  const double rate = p.elapsed > 0 ? static_cast<double>(p.executions) / p.elapsed : 0;
  std::vector<Part> parts;
  parts.push_back({fmt::format("{} executions", p.executions), fmt::format("{} execs", p.executions)});
  parts.push_back({fmt::format(", {:.0f}/s", rate), fmt::format(", {:.0f}/s", rate), 1});
  parts.push_back({fmt::format(", depth {}", p.depth), fmt::format(", depth {}", p.depth), 2});
  parts.push_back({fmt::format(", {:.1f} s elapsed", p.elapsed), fmt::format(", {:.0f} s", p.elapsed), 5});
  const bool exhaustive_strategy = config.strategy != "random" && config.strategy != "pct";
  if (p.estimated) {
    const double rest = std::max(0.0, *p.estimated - static_cast<double>(p.executions));
    if (std::isinf(rest))
      parts.push_back({", left: more than 1e308 executions (estimated)", ", left >1e308", 3});
    else
      parts.push_back({fmt::format(", left: ~{} executions (estimated)", count_text(rest)),
                       fmt::format(", ~{} left", count_text(rest)), 3});
  } else if (exhaustive_strategy) {
    parts.push_back({", left: unknown", "", 3});
  }
  std::string budget, brief;
  if (config.time_limit > 0) {
    budget = fmt::format("{:.0f} s left", std::max(0.0, config.time_limit - p.elapsed));
    brief = fmt::format("{:.0f} s", std::max(0.0, config.time_limit - p.elapsed));
  }
  if (config.max_executions > 0) {
    auto rest = config.max_executions > p.executions ? config.max_executions - p.executions : 0;
    budget += fmt::format("{}{} executions left", budget.empty() ? "" : ", ", rest);
    brief += fmt::format("{}{} execs", brief.empty() ? "" : ", ", rest);
  }
  const bool unbudgeted = budget.empty();
  if (unbudgeted)
    parts.push_back({", budget: none (runs until exhaustive)", ", no budget", 4});
  else
    parts.push_back({", budget: " + budget, ", budget " + brief, 4});
  const bool may_end_soon =
      p.estimated && rate > 0 &&
      (*p.estimated - static_cast<double>(p.executions)) / rate < unbounded_after;
  if (unbudgeted && p.elapsed >= unbounded_after && !may_end_soon)
    parts.push_back({"; this run may not end: add --time-limit S or --max-executions N",
                     "; may not end: add --time-limit S"});
  return parts;
}
}  // namespace

std::string run_progress_text(const RunProgress& p, const RunConfig& config,
                              double unbounded_after, std::size_t columns) {
  const std::string head = fmt::format("{}: {}: ", program_name(), p.run);
  const std::vector<Part> parts = progress_parts(p, config, unbounded_after);
  std::string out = join_parts(head, parts, false, 0);
  if (columns == 0 || out.size() <= columns) return out;
  // Short forms first, then the parts in their drop order, then the name is cut.
  for (int dropped = 0; dropped <= 5; ++dropped) {
    out = join_parts(head, parts, true, dropped);
    if (out.size() <= columns) return out;
  }
  std::string tail = join_parts("", parts, true, 5);
  if (tail.size() + 12 >= columns) return fit_columns(out, columns);
  return fit_columns(program_name() + ": " + p.run, columns - tail.size() - 2) + ": " + tail;
}

std::string fit_columns(std::string text, std::size_t columns) {
  if (columns == 0 || text.size() <= columns) return text;
  if (columns <= 3) return text.substr(0, columns);
  text.resize(columns - 3);
  return text + "...";
}

}  // namespace heddle
