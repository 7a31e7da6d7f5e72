// The folded timeline (issue 16, item 1): a 41-step counterexample whose
// common history folds into one marker, drawn to a golden SVG; unfolded,
// every step is drawn and each lane is named again across the width.
#include <fmt/format.h>

#include "checker/report/timeline.hpp"
#include "test/ci/mini_xml.hpp"
#include "test/golden/golden.hpp"

using namespace heddle;
using heddle::test::check_golden;
using heddle::test::find_all;
using heddle::test::parse_xml;
using heddle::test::XmlNode;

namespace heddle::test {
/// The timeline of the minimized counterexample of `kernel`, replayed.
Timeline counterexample_timeline(const std::string& kernel,
                                 const std::map<std::string, std::string>& params) {
  RunResult found = run(kernel, params);
  REQUIRE(found.schedule);
  const Schedule& s = *found.schedule;
  const Kernel& k = find_kernel(s.kernel, s.params);
  Params resolved = k.resolve(s.params);
  TimelineCapture capture(k.name, resolved.values());
  RunConfig c = replay_config(s);
  c.decorate = capture.decorator();
  RunResult replayed = explore(k, resolved, c);
  REQUIRE(replayed.verdict == found.verdict);
  REQUIRE(capture.timeline());
  return *capture.timeline();
}
}  // namespace heddle::test

namespace {
double width_of(const XmlNode& svg) { return std::stod(svg.attr("width")); }
}  // namespace

TEST_CASE("a long counterexample folds its shared history into one marker", "[timeline]") {
  Timeline t = test::counterexample_timeline("timeline/rounds", {});
  REQUIRE(t.steps.size() == 41);
  REQUIRE(t.accesses.size() == 2);
  std::string svg = timeline_svg(t);
  XmlNode doc = parse_xml(svg);
  // The slice: the last round's three arrivals (where the two racing
  // threads last synchronized) and the two racing threads' last waits; the
  // two steps between them outside it are drawn (too few to fold).
  std::vector<std::string> drawn, folds;
  for (auto* n : find_all(doc, "g")) {
    if (n->has_class("step")) drawn.push_back(n->attr("data-step"));
    if (n->has_class("fold")) folds.push_back(n->attr("data-first") + "-" + n->attr("data-last"));
  }
  INFO(svg);
  CHECK(drawn == std::vector<std::string>{"35", "36", "37", "38", "39", "40", "41"});
  CHECK(folds == std::vector<std::string>{"1-34"});  // the shared history, one marker
  CHECK(width_of(doc) <= 1600);
  CHECK(test::has(svg, "34 steps folded: not in the race's causal slice"));
  check_golden("timeline_folded", svg, ".svg");

  // Unfolded: every step, wider, and every lane named at least every 600 px.
  std::string full = timeline_svg(t, {.full = true});
  XmlNode all = parse_xml(full);
  std::size_t steps = 0;
  std::map<std::string, std::vector<double>> label_x;  // per lane: where its name is written
  for (auto* n : find_all(all, "")) {
    steps += n->name == "g" && n->has_class("step");
    CHECK_FALSE(n->has_class("fold"));
    if (n->has_class("lane")) label_x[n->attr("data-agent")].push_back(0);
    if (n->has_class("lane-label")) label_x[n->attr("data-agent")].push_back(std::stod(n->attr("x")));
  }
  CHECK(steps == 41);
  CHECK(width_of(all) > width_of(doc));
  REQUIRE(label_x.size() == 3);
  for (auto& [lane, xs] : label_x) {
    INFO(lane);
    xs.push_back(width_of(all));
    for (std::size_t i = 1; i < xs.size(); ++i) CHECK(xs[i] - xs[i - 1] <= 800);
  }
}
