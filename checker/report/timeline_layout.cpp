// The layout of the swimlane SVG: lanes top to bottom in agent order, steps
// left to right. Boxes are packed as in a space-time diagram (Lamport,
// "Time, clocks, and the ordering of events in a distributed system", CACM
// 1978): a step starts after its lane's previous box and after the
// operations whose arrows enter it, so unordered lanes share columns and
// every arrow points right; x is causal position, step numbers give the
// schedule's order, and the racing steps keep it left to right (the harmful
// order the schedule shows). Steps outside the race's causal slice fold into
// one marker per run, and lanes left with nothing drawn into one short row.
#include "checker/report/timeline_layout.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace heddle::timeline_detail {
namespace {
constexpr double kMinBox = 56, kMaxBox = 122, kStagger = 10, kArrowRoom = 16, kAccessGap = 10;
constexpr std::size_t kBoxLines = 4;
constexpr std::uint32_t kMinFold = 3;  // the fewest consecutive steps a marker folds

/// The last place in s[b+width/3, b+width] after one of `after`, or npos.
std::size_t break_at(const std::string& s, std::size_t b, std::size_t width, const char* after) {
  for (std::size_t p = b + width; p > b + width / 3; --p)
    if (std::string_view(after).find(s[p - 1]) != std::string_view::npos) return p;
  return std::string::npos;
}

double label_width(const Timeline& t) {
  std::size_t longest = 8;
  for (const auto& a : t.agents) longest = std::max(longest, std::min<std::size_t>(a.name.size(), 30));
  return std::clamp(text_w(longest, 7.4) + 12, 140.0, 220.0);
}

/// Places boxes left to right, row by row (see the file comment).
class Placer {
 public:
  Placer(std::size_t rows, double start) : row_end_(rows, start), ordered_(start), frontier_(start) {}
  /// Places a box of width `w` in `row` at `min_x` or later; an `ordered`
  /// box (a racing step) also starts after the previous ordered one.
  double place(std::size_t row, double w, double min_x, bool ordered, double gap = kGap) {
    double x = std::max(row_end_[row] + gap, min_x);
    if (ordered) x = std::max(x, ordered_ + kStagger);
    if (ordered) ordered_ = x;
    row_end_[row] = x + w;
    frontier_ = std::max(frontier_, x + w);
    return x;
  }
  /// Places a fold marker across rows lo..hi, after their boxes.
  double fold(std::size_t lo, std::size_t hi) {
    double x = 0;
    for (std::size_t i = lo; i <= hi; ++i) x = std::max(x, row_end_[i] + kGap);
    for (std::size_t i = lo; i <= hi; ++i) row_end_[i] = x + kFoldW;
    frontier_ = std::max(frontier_, x + kFoldW);
    return x;
  }
  double frontier() const { return frontier_; }

 private:
  std::vector<double> row_end_;
  double ordered_ = 0, frontier_ = 0;
};

/// Which steps fold: runs outside the causal slice (a run of causal history
/// shorter than kMinFold steps is drawn: its marker would save nothing).
std::vector<bool> folded_steps(const Timeline& t, const TimelineOptions& o) {
  const std::size_t n = t.steps.size();
  std::vector<bool> fold(n + 1, false);
  for (std::uint32_t c = 1; c <= n; ++c) {
    if (o.full || t.steps[c - 1].in_slice) continue;
    std::uint32_t end = c;
    bool past = true;
    for (; end <= n && !t.steps[end - 1].in_slice; ++end) past &= t.steps[end - 1].in_past;
    for (std::uint32_t f = c; f < end; ++f) fold[f] = end - c >= kMinFold || !past;
    c = end - 1;
  }
  return fold;
}

/// Rows: one per agent with a drawn step or a racing access, in agent order,
/// then one shared row for the rest (none with --timeline-full).
void assign_rows(const Timeline& t, const std::vector<bool>& fold, Layout& l) {
  std::vector<bool> drawn(t.agents.size(), false);
  for (const auto& s : t.steps) drawn[s.agent] = drawn[s.agent] || !fold[s.step];
  for (const auto& a : t.accesses) drawn[a.agent] = true;
  l.row.assign(t.agents.size(), 0);
  l.lane_folded.assign(t.agents.size(), false);
  for (std::size_t i = 0; i < t.agents.size(); ++i)
    if (drawn[i]) l.row[i] = l.rows++;
  for (std::size_t i = 0; i < t.agents.size(); ++i)
    if (!drawn[i]) {
      l.row[i] = l.rows;
      l.lane_folded[i] = true;
      ++l.folded_lanes;
    }
  if (l.folded_lanes) ++l.rows;
}

/// An operation wraps onto up to kBoxLines lines of a box kMaxBox wide; one
/// too long for that gets a wider box (up to twice), not a cut label.
std::vector<std::string> op_lines(const std::string& op) {
  auto chars = static_cast<std::size_t>((kMaxBox - 14) / kOpCharW);
  std::vector<std::string> lines = wrap(op, chars, kBoxLines);
  for (; chars < 2 * (kMaxBox - 14) / kOpCharW && lines.size() == kBoxLines &&
         lines.back().find("\u2026") != std::string::npos;
       chars += 4)
    lines = wrap(op, chars, kBoxLines);
  return lines;
}

void make_folds(const Timeline& t, const std::vector<bool>& fold, Layout& l) {
  for (std::uint32_t c = 1; c <= t.steps.size(); ++c) {
    if (!fold[c]) continue;
    const std::size_t r = l.row[t.steps[c - 1].agent];
    if (c > 1 && l.fold_of[c - 1] >= 0) {
      Fold& f = l.folds.back();
      f.last = c;
      f.lo = std::min(f.lo, r);
      f.hi = std::max(f.hi, r);
    } else {
      l.folds.push_back(Fold{c, c, r, r, 0});
    }
    l.fold_of[c] = static_cast<int>(l.folds.size() - 1);
  }
}

void place_all(const Timeline& t, Layout& l) {
  Placer p(l.rows, l.label_w);
  auto edges_into = [&](std::uint32_t step, int access) {
    double min_x = 0;
    for (const auto& e : t.edges)
      if (e.to == step && (step || e.access == access)) min_x = std::max(min_x, l.end_of(e.from) + kArrowRoom);
    return min_x;
  };
  for (std::uint32_t c = 0; c <= t.steps.size(); ++c) {
    if (c >= 1) {
      const auto& s = t.steps[c - 1];
      if (!l.shown(c)) {
        Fold& f = l.folds[static_cast<std::size_t>(l.fold_of[c])];
        if (f.first == c) f.x = p.fold(f.lo, f.hi);
        continue;
      }
      l.lines[c] = op_lines(s.op);
      std::size_t longest = 0;
      for (const auto& line : l.lines[c]) longest = std::max(longest, chars_of(line));
      l.w[c] = std::clamp(text_w(longest, kOpCharW), kMinBox, 2 * kMaxBox);
      bool racing = c == t.bug_step;
      for (const auto& a : t.accesses) racing |= a.own_step && a.column == c;
      l.x[c] = p.place(l.row[s.agent], l.w[c], edges_into(c, -1), racing);
      for (std::size_t k = 0; k < t.accesses.size(); ++k)
        if (t.accesses[k].own_step && t.accesses[k].column == c)
          l.access_x[k] = p.place(l.row[s.agent], l.access_w[k], 0, false, kAccessGap);
    }
    for (std::size_t k = 0; k < t.accesses.size(); ++k) {
      const auto& a = t.accesses[k];
      if (a.own_step || a.column != c) continue;
      l.access_x[k] = p.place(l.row[a.agent], l.access_w[k], edges_into(0, static_cast<int>(k)), true);
    }
  }
  l.end_x = p.frontier();
}
}  // namespace

// Breaks between tokens: after a space, an opening bracket or a comma; else
// after a dot (between the parts of a dotted name); a word is split only when
// a line holds no such place. Never after an underscore (inside a name).
std::vector<std::string> wrap(const std::string& s, std::size_t width, std::size_t max_lines) {
  std::vector<std::string> lines;
  std::size_t b = 0;
  while (b < s.size()) {
    if (s.size() - b <= width) {
      lines.push_back(s.substr(b));
      break;
    }
    if (lines.size() + 1 == max_lines) {
      lines.push_back(s.substr(b, width - 1) + "\u2026");
      break;
    }
    std::size_t p = break_at(s, b, width, " ([,");
    if (p == std::string::npos) p = break_at(s, b, width, ".");
    if (p == std::string::npos) p = b + width;
    std::string line = s.substr(b, p - b);
    while (!line.empty() && line.back() == ' ') line.pop_back();
    lines.push_back(line);
    b = p;
    while (b < s.size() && s[b] == ' ') ++b;
  }
  return lines;
}

std::size_t chars_of(const std::string& s) {
  return static_cast<std::size_t>(
      std::count_if(s.begin(), s.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xc0) != 0x80; }));
}

double text_w(std::size_t chars, double char_w) { return char_w * static_cast<double>(chars) + 14; }

std::string elements(const AccessInfo& a) {
  return a.first == a.last ? fmt::format("[{}]", a.first)
                           : fmt::format("[{}:{}]", a.first, std::uint64_t{a.last} + 1);
}

std::vector<std::string> access_lines(const TimelineAccess& a, std::size_t k) {
  return {fmt::format("access {} ({})", k + 1, a.info.write ? "write" : "read"),
          a.info.region + elements(a.info), a.info.op};
}

Layout layout(const Timeline& t, const TimelineOptions& o) {
  const std::size_t n = t.steps.size();
  Layout l;
  l.label_w = label_width(t);
  l.x.assign(n + 1, 0);
  l.w.assign(n + 1, 0);
  l.fold_of.assign(n + 1, -1);
  l.lines.resize(n + 1);
  l.access_x.assign(t.accesses.size(), 0);
  l.access_w.assign(t.accesses.size(), 0);
  for (std::size_t k = 0; k < t.accesses.size(); ++k) {
    std::size_t longest = 0;
    for (const auto& line : access_lines(t.accesses[k], k)) longest = std::max(longest, line.size());
    l.access_w[k] = std::clamp(text_w(longest), 110.0, 260.0);
  }
  const std::vector<bool> fold = folded_steps(t, o);
  assign_rows(t, fold, l);
  make_folds(t, fold, l);
  place_all(t, l);
  // Room for the legend, the title and the footer's lines, uncut.
  std::size_t footer = 0;
  for (const auto& a : t.accesses)
    footer = std::max({footer, chars_of(a.info.op + a.info.region + a.info.agent) + 60,
                       chars_of(a.info.at) + 24});
  std::size_t title = chars_of(t.kernel) + 19;
  for (const auto& [k, v] : t.params) title += k.size() + v.size() + 2;
  l.width = std::max({l.end_x + 2 * kGap, 960.0, text_w(footer) + 12, text_w(title, 9.1) + 12});
  l.height = l.lanes_end() + 30 + 18 * static_cast<double>(2 * t.accesses.size() + 4);
  return l;
}

}  // namespace heddle::timeline_detail
