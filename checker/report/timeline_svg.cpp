// The swimlane SVG of a timeline: lanes top to bottom in agent order, steps
// left to right in schedule order. A box is a step's operation; a racing
// access is a marker of its own after the box of the operation it follows
// in its lane, so an arrow, which leaves an operation, never seems to leave
// an access it does not order. Boxes are packed as in a space-time diagram
// (Lamport, "Time, clocks, and the ordering of events in a distributed
// system", CACM 1978): a step starts after its lane's previous box and after
// the operations whose arrows enter it, so unordered lanes share columns and
// every arrow points right; step numbers give the schedule's order, and the
// racing steps keep it left to right (the harmful order the schedule shows).
// Steps outside the race's causal slice fold into one marker per run.
#include <fmt/format.h>

#include <algorithm>

#include "checker/report/timeline.hpp"

namespace heddle {
namespace {
constexpr double kLaneH = 84, kBoxH = 58, kTop = 96, kGap = 14, kCharW = 6.7;
constexpr double kOpCharW = 6.1, kOpLineH = 11;  // operations: 10 px text, up to kBoxLines lines
constexpr double kMinBox = 56, kMaxBox = 122, kFoldW = 52, kStagger = 10, kArrowRoom = 16;
constexpr double kAccessGap = 10, kRepeatLabels = 560;  // lane names again at least this often
constexpr std::size_t kBoxLines = 4;
constexpr std::uint32_t kMinFold = 3;  // the fewest consecutive steps a marker folds

std::string esc(const std::string& s) {
  std::string out;
  for (char ch : s) {
    switch (ch) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += ch;
    }
  }
  return out;
}

/// Breaks `s` into lines of at most `width` characters, after a space, an
/// opening bracket, a comma, a dot or an underscore where it can (not in
/// the middle of a word or an index); the last of `max_lines` lines ends in
/// an ellipsis when the text does not fit (the box's tooltip has all of it).
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
    std::size_t p = b + width;
    while (p > b + width / 3 && std::string(" ([,._").find(s[p - 1]) == std::string::npos) --p;
    if (p == b + width / 3) p = b + width;  // no break point: split the word
    std::string line = s.substr(b, p - b);
    while (!line.empty() && line.back() == ' ') line.pop_back();
    lines.push_back(line);
    b = p;
    while (b < s.size() && s[b] == ' ') ++b;
  }
  return lines;
}

/// Characters as drawn (UTF-8 continuation bytes take no room).
std::size_t chars_of(const std::string& s) {
  return static_cast<std::size_t>(
      std::count_if(s.begin(), s.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xc0) != 0x80; }));
}

double text_w(std::size_t chars, double char_w = kCharW) {
  return char_w * static_cast<double>(chars) + 14;
}

/// "[i]" or "[first:last+1]" (half-open, as every report says it): the
/// elements of one racing access.
std::string elements(const AccessInfo& a) {
  return a.first == a.last ? fmt::format("[{}]", a.first)
                           : fmt::format("[{}:{}]", a.first, std::uint64_t{a.last} + 1);
}

/// The lines of a racing access's marker.
std::vector<std::string> access_lines(const TimelineAccess& a, std::size_t k) {
  return {fmt::format("access {} ({})", k + 1, a.info.write ? "write" : "read"),
          a.info.region + elements(a.info), a.info.op};
}

/// A run of consecutive folded steps, drawn across the lanes its steps ran in.
struct Fold {
  std::uint32_t first = 0, last = 0;
  std::size_t lo = 0, hi = 0;  // its lanes, top to bottom
  double x = 0;
};

/// Where everything goes. Steps are indexed by step number (element 0 unused).
struct Layout {
  double label_w = 0, width = 0, height = 0, end_x = 0;
  std::vector<double> x, w;
  std::vector<int> fold_of;  // per step: its fold, or -1 when drawn
  std::vector<std::vector<std::string>> lines;
  std::vector<double> access_x, access_w;
  std::vector<Fold> folds;
  double lane_top(std::size_t agent) const { return kTop + kLaneH * static_cast<double>(agent); }
  double lane_mid(std::size_t agent) const { return lane_top(agent) + kLaneH / 2; }
  bool shown(std::uint32_t step) const { return fold_of[step] < 0; }
  /// The right edge of step `f`'s box, or of its fold marker.
  double end_of(std::uint32_t f) const {
    return shown(f) ? x[f] + w[f] : folds[static_cast<std::size_t>(fold_of[f])].x + kFoldW;
  }
};

double label_width(const Timeline& t) {
  std::size_t longest = 8;
  for (const auto& a : t.agents) longest = std::max(longest, std::min<std::size_t>(a.name.size(), 30));
  return std::clamp(text_w(longest, 7.4) + 12, 140.0, 220.0);
}

/// Places boxes, markers and folds left to right (see the file comment).
class Placer {
 public:
  Placer(const Timeline& t, const Layout& l) : lane_end_(t.agents.size(), l.label_w) {
    ordered_ = l.label_w;
    frontier_ = l.label_w;
  }
  /// Places a box of width `w` in `lane` at `min_x` or later; an `ordered`
  /// box (a racing step) also starts after the previous ordered one.
  double place(std::size_t lane, double w, double min_x, bool ordered, double gap = kGap) {
    double x = std::max(lane_end_[lane] + gap, min_x);
    if (ordered) x = std::max(x, ordered_ + kStagger);
    if (ordered) ordered_ = x;
    lane_end_[lane] = x + w;
    frontier_ = std::max(frontier_, x + w);
    return x;
  }
  /// Places a fold marker across lanes lo..hi, after their boxes.
  double fold(std::size_t lo, std::size_t hi) {
    double x = 0;
    for (std::size_t i = lo; i <= hi; ++i) x = std::max(x, lane_end_[i] + kGap);
    for (std::size_t i = lo; i <= hi; ++i) lane_end_[i] = x + kFoldW;
    frontier_ = std::max(frontier_, x + kFoldW);
    return x;
  }
  double frontier() const { return frontier_; }

 private:
  std::vector<double> lane_end_;
  double ordered_ = 0, frontier_ = 0;
};

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
  // An operation wraps onto up to kBoxLines lines of a box kMaxBox wide; one
  // too long for that gets a wider box (up to twice), not a cut label.
  auto lines_of = [](const std::string& op) {
    auto chars = static_cast<std::size_t>((kMaxBox - 14) / kOpCharW);
    std::vector<std::string> lines = wrap(op, chars, kBoxLines);
    for (; chars < 2 * (kMaxBox - 14) / kOpCharW && lines.size() == kBoxLines &&
           lines.back().find("\u2026") != std::string::npos;
         chars += 4)
      lines = wrap(op, chars, kBoxLines);
    return lines;
  };
  Placer p(t, l);
  auto edges_into = [&](std::uint32_t step, int access) {
    double min_x = 0;
    for (const auto& e : t.edges)
      if (e.to == step && (step || e.access == access)) min_x = std::max(min_x, l.end_of(e.from) + kArrowRoom);
    return min_x;
  };
  // Folded runs first (their lanes decide where they go), then the rest. A
  // run of causal history shorter than kMinFold steps is drawn: its marker
  // would save nothing. Steps outside the causal past always fold.
  std::vector<bool> fold(n + 1, false);
  for (std::uint32_t c = 1; c <= n; ++c) {
    if (o.full || t.steps[c - 1].in_slice) continue;
    std::uint32_t end = c;
    bool past = true;
    for (; end <= n && !t.steps[end - 1].in_slice; ++end) past &= t.steps[end - 1].in_past;
    for (std::uint32_t f = c; f < end; ++f) fold[f] = end - c >= kMinFold || !past;
    c = end - 1;
  }
  for (std::uint32_t c = 1; c <= n; ++c) {
    const auto& s = t.steps[c - 1];
    if (!fold[c]) continue;
    if (c > 1 && l.fold_of[c - 1] >= 0) {
      Fold& f = l.folds.back();
      f.last = c;
      f.lo = std::min(f.lo, s.agent);
      f.hi = std::max(f.hi, s.agent);
    } else {
      l.folds.push_back(Fold{c, c, s.agent, s.agent, 0});
    }
    l.fold_of[c] = static_cast<int>(l.folds.size() - 1);
  }
  for (std::uint32_t c = 0; c <= n; ++c) {
    if (c >= 1) {
      const auto& s = t.steps[c - 1];
      if (!l.shown(c)) {
        Fold& f = l.folds[static_cast<std::size_t>(l.fold_of[c])];
        if (f.first == c) f.x = p.fold(f.lo, f.hi);
        continue;
      }
      l.lines[c] = lines_of(s.op);
      std::size_t longest = 0;
      for (const auto& line : l.lines[c]) longest = std::max(longest, chars_of(line));
      l.w[c] = std::clamp(text_w(longest, kOpCharW), kMinBox, 2 * kMaxBox);
      bool racing = c == t.bug_step;
      for (const auto& a : t.accesses) racing |= a.own_step && a.column == c;
      l.x[c] = p.place(s.agent, l.w[c], edges_into(c, -1), racing);
      for (std::size_t k = 0; k < t.accesses.size(); ++k)
        if (t.accesses[k].own_step && t.accesses[k].column == c)
          l.access_x[k] = p.place(s.agent, l.access_w[k], 0, false, kAccessGap);
    }
    for (std::size_t k = 0; k < t.accesses.size(); ++k) {
      const auto& a = t.accesses[k];
      if (a.own_step || a.column != c) continue;
      l.access_x[k] = p.place(a.agent, l.access_w[k], edges_into(0, static_cast<int>(k)), true);
    }
  }
  l.end_x = p.frontier();
  // Room for the legend, the title and the footer's lines, uncut.
  std::size_t footer = 0;
  for (const auto& a : t.accesses)
    footer = std::max({footer, chars_of(a.info.op + a.info.region + a.info.agent) + 60,
                       chars_of(a.info.at) + 24});
  std::size_t title = chars_of(t.kernel) + 19;
  for (const auto& [k, v] : t.params) title += k.size() + v.size() + 2;
  l.width = std::max({l.end_x + 2 * kGap, 960.0, text_w(footer) + 12, text_w(title, 9.1) + 12});
  l.height = kTop + kLaneH * static_cast<double>(t.agents.size()) + 30 +
             18 * static_cast<double>(2 * t.accesses.size() + 4);
  return l;
}

std::string header(const Timeline& t, const Layout& l) {
  std::vector<std::string> kv;
  for (const auto& [k, v] : t.params) kv.push_back(k + "=" + v);
  std::string out = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0:.0f}\" height=\"{1:.0f}\" "
      "viewBox=\"0 0 {0:.0f} {1:.0f}\" font-family=\"DejaVu Sans Mono, Menlo, monospace\" "
      "font-size=\"11\">\n",
      l.width, l.height);
  out += R"(<defs>
<marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#1f5fbf"/></marker>
<style>
.step rect { fill: #eaf1fb; stroke: #4f74b3; stroke-width: 1.2; }
.step.dim { opacity: 0.38; }
.race-access rect { fill: #ffdede; stroke: #d40000; stroke-width: 3; }
.bug-step rect { fill: #ffdede; stroke: #d40000; stroke-width: 3; }
.race-label { fill: #c00000; font-weight: bold; }
.halo { paint-order: stroke; stroke: white; stroke-width: 3px; stroke-linejoin: round; }
.hb-edge { fill: none; stroke: #1f5fbf; stroke-width: 1.7; }
.hb-edge.create { stroke-dasharray: 6 3; }
.hb-edge.from-fold { stroke-dasharray: 2 3; }
.po { stroke: #8a94a6; stroke-width: 1.2; }
.inflight { fill: #ffb347; fill-opacity: 0.33; stroke: #e08a00; stroke-width: 1; }
.issue-link { stroke: #e08a00; stroke-width: 1.2; stroke-dasharray: 2 3; }
.issue { fill: #e08a00; stroke: white; stroke-width: 1; }
.fold rect { fill: #e4e6ea; stroke: #9aa0aa; stroke-dasharray: 4 3; }
.lane-label { fill: #445; }
</style>
</defs>
)";
  out += "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  out += fmt::format("<text x=\"12\" y=\"24\" font-size=\"15\" font-weight=\"bold\">heddle timeline: "
                     "{}{}</text>\n",
                     esc(t.kernel), kv.empty() ? "" : esc(fmt::format(" ({})", fmt::join(kv, " "))));
  std::string verdict = t.title.empty() ? "no bug in this execution" : t.verdict + ": " + t.title;
  out += fmt::format("<text x=\"12\" y=\"44\" font-size=\"13\" fill=\"{}\">{}</text>\n",
                     t.title.empty() ? "#333" : "#c00000", esc(verdict));
  double y = 58;
  out += fmt::format(
      "<g class=\"legend\" font-size=\"10\">"
      "<rect x=\"12\" y=\"{0}\" width=\"22\" height=\"12\" fill=\"#eaf1fb\" stroke=\"#4f74b3\"/>"
      "<text x=\"40\" y=\"{1}\">operation</text>"
      "<rect x=\"112\" y=\"{0}\" width=\"22\" height=\"12\" fill=\"#ffdede\" stroke=\"#d40000\" "
      "stroke-width=\"2\"/><text x=\"140\" y=\"{1}\">racing access</text>"
      "<rect x=\"242\" y=\"{0}\" width=\"22\" height=\"12\" class=\"inflight\"/>"
      "<text x=\"270\" y=\"{1}\">copy in flight</text>"
      "<line x1=\"372\" y1=\"{2}\" x2=\"400\" y2=\"{2}\" class=\"hb-edge\" marker-end=\"url(#arrow)\"/>"
      "<text x=\"408\" y=\"{1}\">happens-before</text>"
      "<line x1=\"520\" y1=\"{2}\" x2=\"548\" y2=\"{2}\" class=\"hb-edge create\" "
      "marker-end=\"url(#arrow)\"/><text x=\"556\" y=\"{1}\">spawn/issue</text>"
      "<rect x=\"648\" y=\"{0}\" width=\"22\" height=\"12\" fill=\"#e4e6ea\" stroke=\"#9aa0aa\"/>"
      "<text x=\"676\" y=\"{1}\">folded steps</text>"
      "<text x=\"768\" y=\"{1}\" fill=\"#888\">faded: not in the causal past</text></g>\n",
      y, y + 10, y + 6);
  return out;
}

std::string lanes(const Timeline& t, const Layout& l) {
  std::string out;
  for (std::size_t i = 0; i < t.agents.size(); ++i) {
    const auto& a = t.agents[i];
    double top = l.lane_top(i), mid = l.lane_mid(i);
    std::string kind = a.async ? "async, issued by " + a.issuer : "thread";
    auto name = wrap(a.name, static_cast<std::size_t>((l.label_w - 20) / 7.4), 2);
    auto kinds = wrap(kind, static_cast<std::size_t>((l.label_w - 20) / 6.1), 2);
    out += fmt::format("<g class=\"lane\" data-agent=\"{}\"><rect x=\"0\" y=\"{}\" width=\"{:.0f}\" "
                       "height=\"{}\" fill=\"{}\"/>",
                       esc(a.name), top, l.width, kLaneH, i % 2 ? "#f3f4f6" : "#fbfbfc");
    double y = mid - 6 * static_cast<double>(name.size() + kinds.size()) + 14;
    for (const auto& line : name) {
      out += fmt::format("<text x=\"12\" y=\"{:.0f}\" font-size=\"12\" font-weight=\"bold\">{}</text>",
                         y, esc(line));
      y += 13;
    }
    for (const auto& line : kinds) {
      out += fmt::format("<text x=\"12\" y=\"{:.0f}\" font-size=\"10\" fill=\"#666\">{}</text>", y,
                         esc(line));
      y += 12;
    }
    out += "</g>\n";
  }
  return out;
}

// Lane names again every few hundred pixels, above the boxes: a crop of a
// wide picture still says whose lane is whose.
std::string repeated_lane_labels(const Timeline& t, const Layout& l) {
  std::string out;
  for (double x = l.label_w + kRepeatLabels; x + 120 < l.width; x += kRepeatLabels)
    for (std::size_t i = 0; i < t.agents.size(); ++i)
      out += fmt::format("<text class=\"lane-label halo\" data-agent=\"{}\" x=\"{:.0f}\" y=\"{:.0f}\" "
                         "font-size=\"9\">{}</text>\n",
                         esc(t.agents[i].name), x, l.lane_top(i) + 10, esc(t.agents[i].name));
  return out;
}

std::string folds(const Layout& l) {
  std::string out;
  for (const auto& f : l.folds) {
    double top = l.lane_top(f.lo) + 8, h = l.lane_top(f.hi + 1) - 8 - top;
    std::uint32_t count = f.last - f.first + 1;
    std::string range = count == 1 ? fmt::format("{}", f.first) : fmt::format("{}\u2013{}", f.first, f.last);
    out += fmt::format(
        "<g class=\"fold\" data-first=\"{0}\" data-last=\"{1}\"><title>step{2} {3} folded: not in "
        "the race's causal slice (replay --timeline-full draws every step)</title><rect x=\"{4:.1f}\" "
        "y=\"{5}\" width=\"{6}\" height=\"{7}\" rx=\"6\"/><text x=\"{8:.1f}\" y=\"{9}\" "
        "font-size=\"9\" text-anchor=\"middle\" fill=\"#555\">{3}</text><text x=\"{8:.1f}\" "
        "y=\"{10}\" font-size=\"9\" text-anchor=\"middle\" fill=\"#555\">{11} step{2}</text></g>\n",
        f.first, f.last, count == 1 ? "" : "s", range, f.x, top, kFoldW, h, f.x + kFoldW / 2,
        top + 14, top + 25, count);
  }
  return out;
}

// An x at the point of step `s` in the picture: the end of its box, or the
// middle of its fold.
double point_x(const Layout& l, std::uint32_t s) {
  return l.shown(s) ? l.x[s] + l.w[s] : l.folds[static_cast<std::size_t>(l.fold_of[s])].x + kFoldW / 2;
}

std::string inflight(const Timeline& t, const Layout& l) {
  std::string out;
  const std::size_t n = t.steps.size();
  for (std::size_t i = 0; i < t.agents.size(); ++i) {
    const auto& a = t.agents[i];
    if (!a.async) continue;
    const bool issued = a.issued_at >= 1 && a.issued_at <= n;
    double x1 = issued ? point_x(l, a.issued_at) : l.label_w;
    double x2 = a.completed_at ? point_x(l, a.completed_at) + 4 : l.end_x + kGap;
    double mid = l.lane_mid(i);
    out += fmt::format(
        "<rect class=\"inflight\" data-agent=\"{}\" x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" "
        "height=\"{:.1f}\" rx=\"6\"><title>{} in flight: issued {}, {}</title></rect>\n",
        esc(a.name), x1, mid - kBoxH / 2 - 3, std::max(4.0, x2 - x1), kBoxH + 6, esc(a.name),
        issued ? fmt::format("at step {}", a.issued_at) : std::string("before step 1"),
        a.completed_at ? fmt::format("completed at step {}", a.completed_at)
                       : std::string("still in flight at the end"));
    if (issued && l.shown(a.issued_at))  // the issuer's step, down (or up) to the bar
      out += fmt::format("<line class=\"issue-link\" x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{0:.1f}\" "
                         "y2=\"{2:.1f}\"/>\n",
                         x1, l.lane_mid(t.steps[a.issued_at - 1].agent), mid);
  }
  return out;
}

// The issue of each copy, a dot at the end of the issuing step's box: the
// copy is issued after that step's operation.
std::string issues(const Timeline& t, const Layout& l) {
  std::string out;
  for (const auto& a : t.agents) {
    if (!a.async || a.issued_at < 1 || a.issued_at > t.steps.size() || !l.shown(a.issued_at)) continue;
    const auto& s = t.steps[a.issued_at - 1];
    out += fmt::format("<circle class=\"issue\" data-agent=\"{}\" cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"4\">"
                       "<title>step {}: {} issues {}{}</title></circle>\n",
                       esc(a.name), l.x[s.step] + l.w[s.step], l.lane_mid(s.agent), s.step,
                       esc(t.agents[s.agent].name), esc(a.name),
                       a.issued_where.empty() ? "" : " at " + esc(a.issued_where));
  }
  return out;
}

// One box per drawn step, its operation wrapped onto up to three lines;
// steps outside the causal past are faded (only drawn with --timeline-full).
std::string step_boxes(const Timeline& t, const Layout& l) {
  const bool focus = !t.accesses.empty() || t.bug_step;
  std::string out;
  for (const auto& s : t.steps) {
    if (!l.shown(s.step)) continue;
    std::string cls = "step";
    if (focus && !s.in_past && s.step != t.bug_step) cls += " dim";
    if (s.step == t.bug_step) cls += " bug-step";
    double x = l.x[s.step], w = l.w[s.step], top = l.lane_mid(s.agent) - kBoxH / 2;
    out += fmt::format(
        "<g class=\"{}\" data-step=\"{}\" data-agent=\"{}\"><title>step {}: {} {} at {}</title>"
        "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{}\" rx=\"4\"/>"
        "<text x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"9\" fill=\"#667\">{}</text>",
        cls, s.step, esc(t.agents[s.agent].name), s.step, esc(t.agents[s.agent].name), esc(s.op),
        esc(s.at), x, top, w, kBoxH, x + 5, top + 10, s.step);
    const auto& lines = l.lines[s.step];
    double y = top + 12 + (kBoxH - 14 - kOpLineH * static_cast<double>(lines.size())) / 2 + 9;
    for (const auto& line : lines) {
      out += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"10\">{}</text>", x + 6, y,
                         esc(line));
      y += kOpLineH;
    }
    out += "</g>\n";
  }
  return out;
}

// Each racing access, after the operation it follows in its lane (or, when
// it ran before its agent's first step, on its own).
std::string access_markers(const Timeline& t, const Layout& l) {
  std::string out;
  for (std::size_t k = 0; k < t.accesses.size(); ++k) {
    const auto& a = t.accesses[k];
    double x = l.access_x[k], mid = l.lane_mid(a.agent), top = mid - kBoxH / 2;
    if (a.own_step)
      out += fmt::format("<line class=\"po\" x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\"/>\n",
                         l.x[a.column] + l.w[a.column], mid, x, mid);
    out += fmt::format("<g class=\"race-access{}\" data-agent=\"{}\"{} data-access=\"{}\"><title>access "
                       "{}: {} ({}) of {}{} at {}, {}</title><rect x=\"{:.1f}\" y=\"{:.1f}\" "
                       "width=\"{:.1f}\" height=\"{}\" rx=\"4\"/>",
                       a.own_step ? "" : " standalone", esc(a.info.agent),
                       a.own_step ? fmt::format(" data-step=\"{}\"", a.column) : "", k + 1, k + 1,
                       esc(a.info.op), a.info.write ? "write" : "read", esc(a.info.region),
                       elements(a.info), esc(a.info.at),
                       a.own_step ? fmt::format("after the operation of step {}", a.column)
                                  : std::string("before its agent's first step"),
                       x, top, l.access_w[k], kBoxH);
    double y = top + 17;
    for (const auto& line : access_lines(a, k)) {
      out += fmt::format("<text{} x=\"{:.1f}\" y=\"{:.1f}\">{}</text>",
                         y == top + 17 ? " class=\"race-label\"" : "", x + 6, y, esc(line));
      y += 14;
    }
    out += "</g>\n";
  }
  return out;
}

// Happens-before arrows, drawn under the boxes: from an operation (the end
// of its box, leaving toward the target's lane) or a fold, into the start
// of an operation's box or of a standalone access.
std::string edges(const Timeline& t, const Layout& l) {
  std::string out;
  for (const auto& e : t.edges) {
    if (e.to && !l.shown(e.to)) continue;  // both ends folded
    std::size_t from_lane = t.steps[e.from - 1].agent;
    std::size_t to_lane = e.to ? t.steps[e.to - 1].agent : t.accesses[static_cast<std::size_t>(e.access)].agent;
    double x2 = e.to ? l.x[e.to] : l.access_x[static_cast<std::size_t>(e.access)], y2 = l.lane_mid(to_lane);
    double x1 = l.end_of(e.from), y1 = l.lane_mid(from_lane);
    const bool folded = !l.shown(e.from);
    if (!folded && from_lane != to_lane) {  // leave the box on the side of the target lane
      x1 -= std::min(12.0, l.w[e.from] / 3);
      y1 += (to_lane > from_lane ? 1 : -1) * kBoxH / 2;
    }
    double dx = std::max(18.0, (x2 - x1) / 2);
    double c1y = folded || from_lane == to_lane ? y1 : y1 + (to_lane > from_lane ? 1 : -1) * 24;
    out += fmt::format("<path class=\"hb-edge{}{}\" data-from=\"{}\" data-to=\"{}\" d=\"M{:.1f},{:.1f} "
                       "C{:.1f},{:.1f} {:.1f},{:.1f} {:.1f},{:.1f}\" marker-end=\"url(#arrow)\"/>\n",
                       e.creation ? " create" : "", folded ? " from-fold" : "", e.from,
                       e.to ? std::to_string(e.to) : fmt::format("access{}", e.access + 1), x1, y1,
                       folded ? x1 + dx : x1, c1y, x2 - dx, y2, x2 - 1, y2);
  }
  return out;
}

// The two accesses in words under the lanes (proxies named only where one
// is not generic, as in the text report), and what was folded.
std::string footer(const Timeline& t, const Layout& l) {
  std::string out;
  double y = kTop + kLaneH * static_cast<double>(t.agents.size()) + 24;
  const bool proxies = std::any_of(t.accesses.begin(), t.accesses.end(),
                                   [](const TimelineAccess& a) { return a.info.proxy != "generic"; });
  for (std::size_t k = 0; k < t.accesses.size(); ++k, y += 36) {
    const auto& a = t.accesses[k].info;
    out += fmt::format("<text class=\"race-label\" x=\"12\" y=\"{:.0f}\">access {}: {} ({}) of "
                       "{}{} by {}{}</text>\n<text class=\"race-label\" x=\"84\" y=\"{:.0f}\">at "
                       "{}, step {}</text>\n",
                       y, k + 1, esc(a.op), a.write ? "write" : "read", esc(a.region), elements(a),
                       esc(a.agent), proxies ? fmt::format(" ({} proxy)", esc(a.proxy)) : "", y + 18,
                       esc(a.at), a.step);
  }
  if (!t.accesses.empty()) {
    out += fmt::format("<text x=\"12\" y=\"{:.0f}\" fill=\"#555\">neither access happens before "
                       "the other: no chain of arrows and lanes leads from one to the other</text>\n"
                       "<text x=\"12\" y=\"{:.0f}\" fill=\"#555\">(an arrow leaves an operation, "
                       "not the accesses after it)</text>\n",
                       y, y + 18);
    y += 36;
  }
  std::uint32_t folded = 0;
  for (const auto& f : l.folds) folded += f.last - f.first + 1;
  if (folded)
    out += fmt::format("<text class=\"fold-note\" x=\"12\" y=\"{:.0f}\" fill=\"#555\">{} step{} "
                       "folded: not in the race's causal slice (replay --timeline-full draws every "
                       "step)</text>\n",
                       y, folded, folded == 1 ? "" : "s");
  return out;
}
}  // namespace

std::string timeline_svg(const Timeline& t, const TimelineOptions& options) {
  Layout l = layout(t, options);
  return header(t, l) + lanes(t, l) + folds(l) + inflight(t, l) + edges(t, l) +
         step_boxes(t, l) + access_markers(t, l) + issues(t, l) + repeated_lane_labels(t, l) +
         footer(t, l) + "</svg>\n";
}

}  // namespace heddle
