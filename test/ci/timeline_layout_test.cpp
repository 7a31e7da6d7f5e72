// The timeline as a person sees it (issue 50.20): lanes with nothing drawn
// fold into one row, no two labels overlap and no lane label overlaps a
// copy's bar, arrows are drawn over the boxes, operations wrap between
// tokens, and a default picture fits 1,920 px.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <set>
#include <sstream>

#include "checker/report/timeline.hpp"
#include "test/ci/ci_support.hpp"
#include "test/ci/mini_xml.hpp"

using namespace heddle;
using namespace heddle::test;
namespace fs = std::filesystem;

namespace {
struct Box {
  double x0, y0, x1, y1;
  bool overlaps(const Box& o) const { return x0 < o.x1 && o.x0 < x1 && y0 < o.y1 && o.y0 < y1; }
};

double num(const XmlNode& n, const char* key, double otherwise = 0) {
  return n.attrs.count(key) ? std::stod(n.attr(key)) : otherwise;
}

/// A text's box as DejaVu Sans Mono draws it: 0.61 em per character, from
/// 0.8 em above the baseline to 0.2 em below; `size` is the inherited size.
Box text_box(const XmlNode& t, double size) {
  size = num(t, "font-size", size);
  double w = 0.61 * size * static_cast<double>(t.text.size());
  double x = num(t, "x"), y = num(t, "y");
  if (t.attr("text-anchor") == "middle") x -= w / 2;
  return {x, y - 0.8 * size, x + w, y + 0.2 * size};
}

Box rect_box(const XmlNode& r) {
  return {num(r, "x"), num(r, "y"), num(r, "x") + num(r, "width"), num(r, "y") + num(r, "height")};
}

/// Every text element with its box (group font sizes inherited), in order.
void texts(const XmlNode& n, double size, std::vector<std::pair<const XmlNode*, Box>>& out) {
  size = num(n, "font-size", size);
  if (n.name == "text") out.push_back({&n, text_box(n, size)});
  for (const auto& c : n.children) texts(c, size, out);
}

XmlNode cutlass_picture(const std::string& dir) {
  const std::string heddle = HEDDLE_BINARY;
  auto run = run_binary(heddle, "run cutlass/grouped_gemm_epilogue -p groups=2 -p tiles=2 -p subtiles=4 "
                                "-p others=2 --no-minimize -q --out " + dir + "/cex.json");
  REQUIRE(run.code == 1);
  auto replay = run_binary(heddle, "replay " + dir + "/cex.json --timeline " + dir + "/t.svg");
  INFO(replay.out << replay.err);
  REQUIRE(replay.code == 1);
  return parse_xml(slurp(dir + "/t.svg"));
}
}  // namespace

TEST_CASE("a timeline folds empty lanes, overlaps no labels, draws arrows over boxes", "[ci]") {
  const std::string dir = temp_dir();
  const XmlNode svg = cutlass_picture(dir);
  const auto all = find_all(svg, "");
  // Lanes: each drawn lane has a box or a racing access; the copies that
  // ran only inside folds share one row.
  std::set<std::string> drawn;
  for (const auto* n : all)
    if ((n->has_class("step") || n->has_class("race-access")) && n->attrs.count("data-agent"))
      drawn.insert(n->attr("data-agent"));
  std::size_t lanes = 0, folded_rows = 0;
  for (const auto* n : all) {
    if (n->has_class("lane")) {
      ++lanes;
      CHECK(drawn.count(n->attr("data-agent")) == 1);
    }
    if (n->has_class("lane-fold")) {
      ++folded_rows;
      CHECK(std::stoi(n->attr("data-agents")) >= 1);
    }
  }
  CHECK(lanes == drawn.size());
  CHECK(folded_rows == 1);
  // No two texts overlap; no lane label overlaps a copy's bar or a box.
  std::vector<std::pair<const XmlNode*, Box>> boxes;
  texts(svg, 11, boxes);
  for (std::size_t i = 0; i < boxes.size(); ++i)
    for (std::size_t j = i + 1; j < boxes.size(); ++j) {
      INFO("'" << boxes[i].first->text << "' and '" << boxes[j].first->text << "'");
      CHECK_FALSE(boxes[i].second.overlaps(boxes[j].second));
    }
  for (const auto& [t, box] : boxes) {
    if (!t->has_class("lane-label")) continue;
    for (const auto* n : all)
      if (n->name == "rect" && (n->has_class("inflight"))) {
        INFO("label '" << t->text << "' over a bar at x=" << n->attr("x"));
        CHECK_FALSE(box.overlaps(rect_box(*n)));
      }
  }
  // Arrows after every box in the document: drawn over them.
  std::size_t last_box = 0, first_edge = all.size();
  for (std::size_t i = 0; i < all.size(); ++i) {
    if (all[i]->has_class("step") || all[i]->has_class("race-access")) last_box = i;
    if (all[i]->has_class("hb-edge") && all[i]->attrs.count("data-from")) first_edge = std::min(first_edge, i);
  }
  CHECK(first_edge > last_box);
  CHECK(first_edge < all.size());
  // Operations wrap between tokens, never inside a name at an underscore.
  for (const auto* n : all)
    if (n->has_class("step"))
      for (const auto& c : n->children)
        if (c.name == "text") CHECK(c.text.back() != '_');
  CHECK(num(svg, "width") <= 1920);
  fs::remove_all(dir);
}

TEST_CASE("a wide default timeline is scaled to 1,920 px; --timeline-full is not", "[ci]") {
  Timeline t;
  t.kernel = "wide";
  t.verdict = "ok";
  TimelineAgent agent;
  agent.name = "t0";
  t.agents.push_back(agent);
  for (std::uint32_t s = 1; s <= 40; ++s)
    t.steps.push_back({s, 0, "a_rather_long_operation_name(argument_" + std::to_string(s) + ")", "x.cpp:1"});
  for (bool full : {false, true}) {
    XmlNode svg = parse_xml(timeline_svg(t, TimelineOptions{full}));
    std::istringstream view(svg.attr("viewBox"));
    double x0, y0, w, h;
    view >> x0 >> y0 >> w >> h;
    REQUIRE(w > 1920);
    CHECK(num(svg, "width") == Approx(full ? w : 1920).margin(1));
    CHECK(num(svg, "height") / num(svg, "width") == Approx(h / w).epsilon(0.01));
  }
}
