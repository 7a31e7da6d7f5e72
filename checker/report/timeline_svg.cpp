// The swimlane SVG of a timeline: lanes top to bottom in agent order, steps
// left to right in schedule order, one column per step.
#include <fmt/format.h>

#include <algorithm>

#include "checker/report/timeline.hpp"

namespace heddle {
namespace {
constexpr double kLabelW = 210, kLaneH = 72, kBoxH = 34, kTop = 92, kGap = 30, kCharW = 6.7;
constexpr double kMinBox = 64, kMaxBox = 220, kMarkerW = 92;

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

double text_w(const std::string& s) { return kCharW * static_cast<double>(s.size()) + 16; }

std::string fit(const std::string& s, double width) {
  auto max_chars = static_cast<std::size_t>((width - 12) / kCharW);
  if (s.size() <= max_chars) return s;
  return s.substr(0, max_chars > 1 ? max_chars - 1 : 0) + "\u2026";
}

/// Column geometry: column c holds step c's box, then (when some access
/// ran before its agent's first step, after step c) a marker slot.
struct Layout {
  std::vector<double> x, w, marker_x, marker_w;
  double width = 0, height = 0;
  double lane_mid(std::size_t agent) const { return kTop + kLaneH * (agent + 0.5); }
};

Layout layout(const Timeline& t) {
  std::size_t n = t.steps.size();
  Layout l;
  l.w.assign(n + 1, 0);
  l.marker_w.assign(n + 1, 0);
  for (const auto& s : t.steps) l.w[s.step] = std::clamp(text_w(s.op), kMinBox, kMaxBox);
  for (const auto& a : t.accesses)
    if (!a.own_step && a.column <= n) l.marker_w[a.column] = kMarkerW;
  double x = kLabelW + kGap;
  for (std::size_t c = 0; c <= n; ++c) {
    l.x.push_back(x);
    if (l.w[c] > 0) x += l.w[c] + kGap;
    l.marker_x.push_back(x);
    if (l.marker_w[c] > 0) x += l.marker_w[c] + kGap;
  }
  l.width = std::max(x + kGap, 880.0);  // room for the legend
  l.height = kTop + kLaneH * static_cast<double>(t.agents.size()) + 30 + 18 * (t.accesses.size() + 2);
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
.race-label { fill: #c00000; font-weight: bold; paint-order: stroke; stroke: white; stroke-width: 3px; }
.hb-edge { fill: none; stroke: #1f5fbf; stroke-width: 1.7; }
.hb-edge.create { stroke-dasharray: 6 3; }
.inflight { fill: #ffb347; fill-opacity: 0.33; stroke: #e08a00; stroke-width: 1; }
.issue-link { stroke: #e08a00; stroke-width: 1.2; stroke-dasharray: 2 3; }
</style>
</defs>
)";
  out += fmt::format("<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n");
  out += fmt::format("<text x=\"12\" y=\"24\" font-size=\"15\" font-weight=\"bold\">heddle timeline: "
                     "{}{}</text>\n",
                     esc(t.kernel), kv.empty() ? "" : esc(fmt::format(" ({})", fmt::join(kv, " "))));
  std::string verdict = t.title.empty() ? "no bug in this execution" : t.verdict + ": " + t.title;
  out += fmt::format("<text x=\"12\" y=\"44\" font-size=\"13\" fill=\"{}\">{}</text>\n",
                     t.title.empty() ? "#333" : "#c00000", esc(verdict));
  // Legend.
  double y = 58;
  out += fmt::format(
      "<g class=\"legend\" font-size=\"10\">"
      "<rect x=\"12\" y=\"{0}\" width=\"22\" height=\"12\" fill=\"#eaf1fb\" stroke=\"#4f74b3\"/>"
      "<text x=\"40\" y=\"{1}\">step</text>"
      "<rect x=\"82\" y=\"{0}\" width=\"22\" height=\"12\" fill=\"#ffdede\" stroke=\"#d40000\" "
      "stroke-width=\"2\"/><text x=\"110\" y=\"{1}\">racing access</text>"
      "<rect x=\"212\" y=\"{0}\" width=\"22\" height=\"12\" class=\"inflight\"/>"
      "<text x=\"240\" y=\"{1}\">async agent in flight</text>"
      "<line x1=\"392\" y1=\"{2}\" x2=\"420\" y2=\"{2}\" class=\"hb-edge\" marker-end=\"url(#arrow)\"/>"
      "<text x=\"428\" y=\"{1}\">happens-before</text>"
      "<line x1=\"540\" y1=\"{2}\" x2=\"568\" y2=\"{2}\" class=\"hb-edge create\" "
      "marker-end=\"url(#arrow)\"/><text x=\"576\" y=\"{1}\">spawn/issue</text>"
      "<text x=\"670\" y=\"{1}\" fill=\"#888\">faded: not in the causal past</text></g>\n",
      y, y + 10, y + 6);
  return out;
}

std::string lanes(const Timeline& t, const Layout& l) {
  std::string out;
  for (std::size_t i = 0; i < t.agents.size(); ++i) {
    const auto& a = t.agents[i];
    double top = kTop + kLaneH * static_cast<double>(i);
    std::string kind = a.async ? "async, issued by " + a.issuer : "thread";
    out += fmt::format(
        "<g class=\"lane\" data-agent=\"{0}\"><rect x=\"0\" y=\"{1}\" width=\"{2:.0f}\" "
        "height=\"{3}\" fill=\"{4}\"/><text x=\"12\" y=\"{5}\" font-size=\"13\" "
        "font-weight=\"bold\">{6}</text><text x=\"12\" y=\"{7}\" font-size=\"10\" "
        "fill=\"#666\">{8}</text></g>\n",
        esc(a.name), top, l.width, kLaneH, i % 2 ? "#f3f4f6" : "#fbfbfc", top + kLaneH / 2 - 2,
        esc(fit(a.name, kLabelW)), top + kLaneH / 2 + 13, esc(fit(kind, kLabelW)));
  }
  return out;
}

std::string inflight(const Timeline& t, const Layout& l) {
  std::string out;
  const std::size_t n = t.steps.size();
  for (std::size_t i = 0; i < t.agents.size(); ++i) {
    const auto& a = t.agents[i];
    if (!a.async) continue;
    double x1 = a.issued_at ? l.x[a.issued_at] + l.w[a.issued_at] : kLabelW;
    double x2 = a.completed_at ? l.x[a.completed_at] + l.w[a.completed_at] + 4 : l.x[n] + l.w[n] + kGap;
    double mid = l.lane_mid(i);
    out += fmt::format(
        "<rect class=\"inflight\" data-agent=\"{}\" x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" "
        "height=\"{:.1f}\" rx=\"6\"><title>{} in flight: issued {}, {}</title></rect>\n",
        esc(a.name), x1, mid - kBoxH / 2 - 7, std::max(4.0, x2 - x1), kBoxH + 14, esc(a.name),
        a.issued_at ? fmt::format("at step {}", a.issued_at) : std::string("before step 1"),
        a.completed_at ? fmt::format("completed at step {}", a.completed_at)
                       : std::string("still in flight at the end"));
    if (a.issued_at && a.issued_at <= n) {  // the issuer's step, down (or up) to the bar
      const auto& s = t.steps[a.issued_at - 1];
      out += fmt::format("<line class=\"issue-link\" x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{0:.1f}\" "
                         "y2=\"{2:.1f}\"/>\n",
                         x1, l.lane_mid(s.agent), mid);
    }
  }
  return out;
}

/// "[i]" or "[first..last]": the elements of one racing access.
std::string elements(const AccessInfo& a) {
  return a.first == a.last ? fmt::format("[{}]", a.first) : fmt::format("[{}..{}]", a.first, a.last);
}

std::string access_label(const TimelineAccess& a, std::size_t k) {
  return fmt::format("access {}: {} {}{}", k + 1, a.info.write ? "write" : "read", a.info.region,
                     elements(a.info));
}

// One box per step; the steps holding a racing access are framed in red and
// labelled, and steps outside the causal past are faded.
std::string step_boxes(const Timeline& t, const Layout& l) {
  const bool focus = !t.accesses.empty() || t.bug_step;
  std::string out;
  for (const auto& s : t.steps) {
    std::vector<std::size_t> ks;
    for (std::size_t k = 0; k < t.accesses.size(); ++k)
      if (t.accesses[k].own_step && t.accesses[k].column == s.step) ks.push_back(k);
    std::string cls = "step";
    if (focus && !s.in_past && ks.empty() && s.step != t.bug_step) cls += " dim";
    if (!ks.empty()) cls += " race-access";
    if (s.step == t.bug_step) cls += " bug-step";
    double x = l.x[s.step], w = l.w[s.step], mid = l.lane_mid(s.agent);
    out += fmt::format(
        "<g class=\"{}\" data-step=\"{}\" data-agent=\"{}\"><title>step {}: {} {} at {}</title>"
        "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{}\" rx=\"4\"/>"
        "<text x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"9\" fill=\"#667\">{}</text>"
        "<text x=\"{:.1f}\" y=\"{:.1f}\">{}</text></g>\n",
        cls, s.step, esc(t.agents[s.agent].name), s.step, esc(t.agents[s.agent].name), esc(s.op),
        esc(s.at), x, mid - kBoxH / 2, w, kBoxH, x + 5, mid - kBoxH / 2 + 10, s.step, x + 6,
        mid + 9, esc(fit(s.op, w)));
    double ly = mid + kBoxH / 2 + 13;
    for (std::size_t k : ks) {
      out += fmt::format("<text class=\"race-label\" x=\"{:.1f}\" y=\"{:.1f}\">{}</text>\n", x, ly,
                         esc(access_label(t.accesses[k], k)));
      ly += 12;
    }
  }
  return out;
}

// Accesses that ran before their agent's first step get a box of their own.
std::string standalone_accesses(const Timeline& t, const Layout& l) {
  std::string out;
  for (std::size_t k = 0; k < t.accesses.size(); ++k) {
    const auto& a = t.accesses[k];
    if (a.own_step) continue;
    double x = l.marker_x[a.column], mid = l.lane_mid(a.agent);
    out += fmt::format(
        "<g class=\"race-access standalone\" data-agent=\"{}\"><title>{} before its first "
        "step</title><rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{}\" height=\"{}\" rx=\"4\"/>"
        "<text x=\"{:.1f}\" y=\"{:.1f}\">{}</text></g>\n"
        "<text class=\"race-label\" x=\"{:.1f}\" y=\"{:.1f}\">{}</text>\n",
        esc(a.info.agent), esc(access_label(a, k)), x, mid - kBoxH / 2, kMarkerW, kBoxH, x + 6,
        mid + 4, esc(fit(a.info.op, kMarkerW)), x, mid + kBoxH / 2 + 13, esc(access_label(a, k)));
  }
  return out;
}

// Happens-before arrows, from the right edge of a step to the left edge of the next.
std::string edges(const Timeline& t, const Layout& l) {
  std::string out;
  for (const auto& e : t.edges) {
    const auto& from = t.steps[e.from - 1];
    double x1 = l.x[e.from] + l.w[e.from], y1 = l.lane_mid(from.agent), x2 = 0, y2 = 0;
    if (e.to) {
      x2 = l.x[e.to];
      y2 = l.lane_mid(t.steps[e.to - 1].agent);
    } else {
      const auto& a = t.accesses[static_cast<std::size_t>(e.access)];
      x2 = l.marker_x[a.column];
      y2 = l.lane_mid(a.agent);
    }
    double dx = std::max(18.0, (x2 - x1) / 2);
    out += fmt::format("<path class=\"hb-edge{}\" data-from=\"{}\" data-to=\"{}\" d=\"M{:.1f},{:.1f} "
                       "C{:.1f},{:.1f} {:.1f},{:.1f} {:.1f},{:.1f}\" marker-end=\"url(#arrow)\"/>\n",
                       e.creation ? " create" : "", e.from,
                       e.to ? std::to_string(e.to) : fmt::format("access{}", e.access + 1), x1, y1,
                       x1 + dx, y1, x2 - dx, y2, x2 - 1, y2);
  }
  return out;
}

// The two accesses in words under the lanes (proxies named only where one
// is not generic, as in the text report).
std::string footer(const Timeline& t) {
  std::string out;
  double y = kTop + kLaneH * static_cast<double>(t.agents.size()) + 24;
  const bool proxies = std::any_of(t.accesses.begin(), t.accesses.end(),
                                   [](const TimelineAccess& a) { return a.info.proxy != "generic"; });
  for (std::size_t k = 0; k < t.accesses.size(); ++k, y += 18) {
    const auto& a = t.accesses[k].info;
    out += fmt::format("<text class=\"race-label\" x=\"12\" y=\"{:.0f}\">access {}: {} ({}) of "
                       "{}{} by {}{} at {}, step {}</text>\n",
                       y, k + 1, esc(a.op), a.write ? "write" : "read", esc(a.region), elements(a),
                       esc(a.agent), proxies ? fmt::format(" ({} proxy)", esc(a.proxy)) : "",
                       esc(a.at), a.step);
  }
  if (!t.accesses.empty())
    out += fmt::format("<text x=\"12\" y=\"{:.0f}\" fill=\"#555\">neither access happens before "
                       "the other: no chain of arrows and lanes leads from one to the other</text>\n",
                       y);
  return out;
}
}  // namespace

std::string timeline_svg(const Timeline& t) {
  Layout l = layout(t);
  return header(t, l) + lanes(t, l) + inflight(t, l) + step_boxes(t, l) + standalone_accesses(t, l) +
         edges(t, l) + footer(t) + "</svg>\n";
}

}  // namespace heddle
