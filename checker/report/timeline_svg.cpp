// The swimlane SVG of a timeline (laid out by timeline_layout.cpp): lanes,
// one box per step's operation, each racing access a marker of its own after
// the box of the operation it follows in its lane (an arrow, which leaves an
// operation, never seems to leave an access it does not order), folds, the
// in-flight bars of copies, and the happens-before arrows, drawn last so that
// no box hides one.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "checker/report/timeline.hpp"
#include "checker/report/timeline_layout.hpp"

namespace heddle {
namespace {
using namespace timeline_detail;
constexpr double kRepeatLabels = 560;  // lane names again at least this often

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

// A default picture wider than kMaxWidth is drawn at its own coordinates and
// shown scaled to fit (the viewBox keeps them); --timeline-full is not scaled.
std::string header(const Timeline& t, const Layout& l, const TimelineOptions& o) {
  std::vector<std::string> kv;
  for (const auto& [k, v] : t.params) kv.push_back(k + "=" + v);
  const double scale = o.full ? 1.0 : std::min(1.0, kMaxWidth / l.width);
  std::string out = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{:.0f}\" height=\"{:.0f}\" "
      "viewBox=\"0 0 {:.0f} {:.0f}\" font-family=\"DejaVu Sans Mono, Menlo, monospace\" "
      "font-size=\"11\">\n",
      std::floor(l.width * scale), std::ceil(l.height * scale), l.width, l.height);
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
      "<text x=\"768\" y=\"{1}\" fill=\"#888\">faded: not in the causal past</text>"
      "<text class=\"x-axis\" x=\"12\" y=\"{3}\" fill=\"#555\">left to right: causal order, not "
      "time (a box starts after what happens before it); step numbers give the schedule's "
      "order</text></g>\n",
      y, y + 10, y + 6, y + 28);
  return out;
}

// One short row for the agents with nothing drawn (their steps are folded):
// named in its tooltip and counted in its label.
std::string folded_row(const Timeline& t, const Layout& l) {
  if (!l.folded_lanes) return "";
  std::vector<std::string> names;
  for (std::size_t i = 0; i < t.agents.size(); ++i)
    if (l.lane_folded[i]) names.push_back(t.agents[i].name);
  const std::size_t r = l.rows - 1;
  // The label stays in the label column, clear of the folds drawn across the row.
  return fmt::format(
      "<g class=\"lane-fold\" data-agents=\"{0}\"><title>{0} lane{5} folded, no step in the "
      "race's causal slice (replay --timeline-full draws them): {1}</title><rect x=\"0\" "
      "y=\"{2}\" width=\"{3:.0f}\" height=\"{4}\" fill=\"#e9eaee\"/><text x=\"12\" y=\"{6:.0f}\" "
      "font-size=\"11\" font-weight=\"bold\" fill=\"#555\">{0} lane{5} folded</text><text "
      "x=\"12\" y=\"{7:.0f}\" font-size=\"10\" fill=\"#666\">none in the slice</text></g>\n",
      l.folded_lanes, esc(fmt::format("{}", fmt::join(names, ", "))), l.row_top(r), l.width,
      kFoldedRowH, l.folded_lanes == 1 ? "" : "s", l.row_mid(r) - 3, l.row_mid(r) + 10);
}

std::string lanes(const Timeline& t, const Layout& l) {
  std::string out;
  for (std::size_t i = 0; i < t.agents.size(); ++i) {
    const auto& a = t.agents[i];
    if (l.lane_folded[i]) continue;
    double top = l.lane_top(i), mid = l.lane_mid(i);
    std::string kind = a.async ? "async, issued by " + a.issuer : "thread";
    auto name = wrap(a.name, static_cast<std::size_t>((l.label_w - 20) / 7.4), 2);
    auto kinds = wrap(kind, static_cast<std::size_t>((l.label_w - 20) / 6.1), 2);
    out += fmt::format("<g class=\"lane\" data-agent=\"{}\"><rect x=\"0\" y=\"{}\" width=\"{:.0f}\" "
                       "height=\"{}\" fill=\"{}\"/>",
                       esc(a.name), top, l.width, kLaneH, l.row[i] % 2 ? "#f3f4f6" : "#fbfbfc");
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
  return out + folded_row(t, l);
}

// Lane names again every few hundred pixels, above the boxes: a crop of a
// wide picture still says whose lane is whose.
std::string repeated_lane_labels(const Timeline& t, const Layout& l) {
  std::string out;
  for (double x = l.label_w + kRepeatLabels; x + 120 < l.width; x += kRepeatLabels)
    for (std::size_t i = 0; i < t.agents.size(); ++i)
      if (!l.lane_folded[i])  // baseline at +9: above the in-flight bar (+12) and the boxes (+13)
        out += fmt::format("<text class=\"lane-label halo\" data-agent=\"{}\" x=\"{:.0f}\" "
                           "y=\"{:.0f}\" font-size=\"9\">{}</text>\n",
                           esc(t.agents[i].name), x, l.lane_top(i) + 9, esc(t.agents[i].name));
  return out;
}

std::string folds(const Layout& l) {
  std::string out;
  for (const auto& f : l.folds) {
    double top = l.row_top(f.lo) + 8, h = l.row_top(f.hi) + l.row_h(f.hi) - 8 - top;
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
    if (!a.async || l.lane_folded[i]) continue;
    const bool issued = a.issued_at >= 1 && a.issued_at <= n;
    double x1 = issued ? point_x(l, a.issued_at) : l.label_w;
    double x2 = a.completed_at ? point_x(l, a.completed_at) + 4 : l.end_x + kGap;
    double mid = l.lane_mid(i);
    out += fmt::format(
        "<rect class=\"inflight\" data-agent=\"{}\" x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" "
        "height=\"{:.1f}\" rx=\"6\"><title>{} in flight: issued {}, {}</title></rect>\n",
        esc(a.name), x1, mid - kBoxH / 2 - 1, std::max(4.0, x2 - x1), kBoxH + 2, esc(a.name),
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
  for (std::size_t i = 0; i < t.agents.size(); ++i) {
    const auto& a = t.agents[i];
    if (!a.async || l.lane_folded[i] || a.issued_at < 1 || a.issued_at > t.steps.size() || !l.shown(a.issued_at)) continue;
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

// Happens-before arrows, drawn over the boxes: from an operation (the end
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
    // From another lane, arrive through the gap before the box, from the
    // side of the source lane, not along the lane through the boxes before it.
    double c2x = x2 - dx, c2y = y2;
    if (!folded && from_lane != to_lane) {
      c2x = x2 - 7;
      c2y = y2 + (from_lane < to_lane ? -1 : 1) * kBoxH * 0.9;
    }
    out += fmt::format("<path class=\"hb-edge{}{}\" data-from=\"{}\" data-to=\"{}\" d=\"M{:.1f},{:.1f} "
                       "C{:.1f},{:.1f} {:.1f},{:.1f} {:.1f},{:.1f}\" marker-end=\"url(#arrow)\"/>\n",
                       e.creation ? " create" : "", folded ? " from-fold" : "", e.from,
                       e.to ? std::to_string(e.to) : fmt::format("access{}", e.access + 1), x1, y1,
                       folded ? x1 + dx : x1, c1y, c2x, c2y, x2 - 1, y2);
  }
  return out;
}

// The two accesses in words under the lanes (proxies named only where one
// is not generic, as in the text report), and what was folded.
std::string footer(const Timeline& t, const Layout& l) {
  std::string out;
  double y = l.lanes_end() + 24;
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
  return header(t, l, options) + lanes(t, l) + folds(l) + inflight(t, l) + step_boxes(t, l) +
         access_markers(t, l) + edges(t, l) + issues(t, l) + repeated_lane_labels(t, l) +
         footer(t, l) + "</svg>\n";
}

}  // namespace heddle
