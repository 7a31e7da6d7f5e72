// Timelines: the SVG's structure (lanes, highlighted accesses, happens-before
// arrows, in-flight bars), the Chrome trace, and a headless Chromium rendering.
#include <catch2/catch.hpp>

#include <cstdio>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "checker/cli/ci_job.hpp"
#include "checker/report/timeline.hpp"
#include "test/ci/ci_support.hpp"
#include "test/ci/mini_xml.hpp"
#include "test/ci/png_probe.hpp"

using namespace heddle;
using namespace heddle::test;
namespace fs = std::filesystem;

namespace {
struct SvgFacts {
  std::vector<std::string> lanes;                 // data-agent of each lane, top to bottom
  std::vector<const XmlNode*> accesses;           // elements with class race-access
  std::set<std::pair<std::string, std::string>> edges, creations;  // (from, to)
  std::set<std::string> inflight;                 // agents with an in-flight bar
};

SvgFacts facts(const XmlNode& svg) {
  SvgFacts f;
  for (auto* n : find_all(svg, "")) {
    if (n->has_class("lane")) f.lanes.push_back(n->attr("data-agent"));
    if (n->has_class("race-access")) f.accesses.push_back(n);
    if (n->has_class("hb-edge") && n->attrs.count("data-from"))
      (n->has_class("create") ? f.creations : f.edges).insert({n->attr("data-from"), n->attr("data-to")});
    if (n->has_class("inflight") && n->attrs.count("data-agent")) f.inflight.insert(n->attr("data-agent"));
  }
  return f;
}

}  // namespace

namespace heddle::test {
/// Writes the timeline of ci/pipeline:racy (SVG, Chrome trace) into `dir`.
void pipeline_timeline(const std::string& dir) {
  auto run = fixture("run ci/pipeline --param wait=false --quiet --out " + dir + "/cex.json");
  REQUIRE(run.code == 1);
  auto replay = fixture("replay " + dir + "/cex.json --timeline " + dir + "/t.svg --chrome-trace " +
                        dir + "/t.trace.json");
  INFO(replay.out << replay.err);
  REQUIRE(replay.code == 1);
}
}  // namespace heddle::test

TEST_CASE("timeline SVG of the pipeline race: lanes, accesses, arrows, in-flight bar", "[ci]") {
  std::string dir = temp_dir();
  pipeline_timeline(dir);
  XmlNode svg = parse_xml(slurp(dir + "/t.svg"));
  REQUIRE(svg.name == "svg");
  SvgFacts f = facts(svg);
  // By hand: step 1 producer store(ready); step 2 consumer await(ready), then
  // issues the copy and reads dst[0]; step 3 the copy writes dst[0].
  CHECK(f.lanes == std::vector<std::string>{"producer", "consumer", "copy"});
  REQUIRE(f.accesses.size() == 2);
  CHECK(f.accesses[0]->attr("data-agent") == "consumer");
  CHECK(f.accesses[0]->attr("data-step") == "2");
  CHECK(f.accesses[1]->attr("data-agent") == "copy");
  CHECK(f.accesses[1]->attr("data-step") == "3");
  // Happens-before into the accesses: the release/acquire on ready, and the issue.
  CHECK(f.edges == std::set<std::pair<std::string, std::string>>{{"1", "2"}});
  CHECK(f.creations == std::set<std::pair<std::string, std::string>>{{"2", "3"}});
  CHECK(f.inflight == std::set<std::string>{"copy"});
  std::string text = slurp(dir + "/t.svg");
  CHECK(text.find("race: data race on dst[0]") != std::string::npos);
  CHECK(text.find(">await(ready)<") != std::string::npos);
  fs::remove_all(dir);
}

namespace {
struct Box {
  double x = 0, w = 0;
};
Box box_of(const XmlNode& g) {
  for (const auto& c : g.children)
    if (c.name == "rect") return {std::stod(c.attr("x")), std::stod(c.attr("width"))};
  FAIL("no rect in " << g.attr("class"));
  return {};
}
}  // namespace

TEST_CASE("happens-before arrows leave operations, not the racing accesses after them", "[ci]") {
  // demo/handoff: the producer signals (step 1) and then writes the buffer
  // (access 1); the consumer waits (step 2) and reads it (access 2). The
  // signal orders the wait, not the write: the arrow must leave the
  // signal's box, and the write must be drawn after it, not under it.
  std::string dir = temp_dir();
  REQUIRE(cli("run demo/handoff --quiet --out " + dir + "/cex.json").code == 1);
  REQUIRE(cli("replay " + dir + "/cex.json --timeline " + dir + "/t.svg").code == 1);
  XmlNode svg = parse_xml(slurp(dir + "/t.svg"));
  std::map<std::string, Box> steps, accesses;
  const XmlNode* arrow = nullptr;
  for (auto* n : find_all(svg, "")) {
    if (n->name == "g" && n->has_class("step")) steps[n->attr("data-step")] = box_of(*n);
    if (n->name == "g" && n->has_class("race-access")) accesses[n->attr("data-step")] = box_of(*n);
    if (n->has_class("hb-edge") && n->attr("data-from") == "1" && n->attr("data-to") == "2")
      arrow = n;
  }
  REQUIRE(steps.size() == 2);
  REQUIRE(accesses.size() == 2);
  REQUIRE(arrow != nullptr);
  double x1 = 0, y1 = 0;
  REQUIRE(std::sscanf(arrow->attr("d").c_str(), "M%lf,%lf", &x1, &y1) == 2);
  CHECK(x1 >= steps["1"].x);
  CHECK(x1 <= steps["1"].x + steps["1"].w);               // it leaves the signal's box
  CHECK(accesses["1"].x >= steps["1"].x + steps["1"].w);  // the write comes after the signal
  CHECK(accesses["2"].x >= steps["2"].x + steps["2"].w);  // the read after the wait
  for (const auto& [step, a] : accesses) CHECK_FALSE((x1 >= a.x && x1 <= a.x + a.w));
  fs::remove_all(dir);
}

TEST_CASE("Chrome trace of the pipeline race: tracks, steps, flows, race instants", "[ci]") {
  std::string dir = temp_dir();
  pipeline_timeline(dir);
  auto j = nlohmann::json::parse(slurp(dir + "/t.trace.json"));
  REQUIRE(j["traceEvents"].is_array());
  std::size_t threads = 0, steps = 0, races = 0, flow_s = 0, flow_f = 0, inflight = 0;
  for (const auto& e : j["traceEvents"]) {
    REQUIRE(e.contains("ph"));
    REQUIRE(e.contains("pid"));
    std::string ph = e["ph"];
    threads += ph == "M" && e["name"] == "thread_name";
    steps += ph == "X" && e["cat"] == "step";
    inflight += ph == "X" && e["cat"] == "inflight";
    races += ph == "i" && e["cat"] == "race";
    flow_s += ph == "s";
    flow_f += ph == "f";
  }
  CHECK(threads == 3);
  CHECK(steps == 3);
  CHECK(inflight == 1);
  CHECK(races == 2);
  CHECK(flow_s == 2);
  CHECK(flow_f == 2);
  fs::remove_all(dir);
}

TEST_CASE("timeline of a race with no synchronization has no arrow between the accesses", "[ci]") {
  // test/flag_message with relaxed orders: the consumer reads the flag the
  // producer stored, but a relaxed store/load pair is no happens-before edge.
  const Kernel& k = find_kernel("test/flag_message");
  Params params = k.resolve({{"order", "relaxed"}});
  TimelineCapture capture(k.name, params.values());
  RunConfig c;
  c.decorate = capture.decorator();
  RunResult r = explore(k, params, c);
  REQUIRE(r.verdict == Verdict::race);
  REQUIRE(capture.timeline());
  const Timeline& t = *capture.timeline();
  REQUIRE(t.accesses.size() == 2);
  CHECK(t.accesses[0].info.agent == "producer");
  CHECK_FALSE(t.accesses[0].own_step);  // the data write runs before the producer's first step
  CHECK(t.accesses[1].info.agent == "consumer");
  CHECK(t.accesses[1].own_step);
  CHECK(t.edges.empty());
  // With release/acquire there is no race, and no access to highlight.
  TimelineCapture ok(k.name, {});
  c.decorate = ok.decorator();
  CHECK(explore(k, k.resolve({{"order", "release"}}), c).verdict == Verdict::ok);
  REQUIRE(ok.timeline());
  CHECK(ok.timeline()->accesses.empty());
  CHECK(parse_xml(timeline_svg(*ok.timeline())).name == "svg");
}

TEST_CASE("every race the repository's CI job finds draws as a two-access timeline", "[ci]") {
  // Covers each kernel under kernels/ with an expected race (the CUTLASS and
  // Pallas counterexamples once those kernels are registered).
  std::string dir = temp_dir();
  auto job = cli("run --all --quiet --artifacts " + dir + "/art");
  REQUIRE(job.code == 0);
  std::size_t drawn = 0;
  for (const auto& c : ci_cases("")) {
    if (c.kernel.rfind("test/", 0) == 0 || c.expect != Verdict::race) continue;
    std::string cex = dir + "/art/" + safe_file_name(c.id()) + ".json";
    auto r = cli("replay " + cex + " --timeline " + dir + "/t.svg");
    INFO(c.id() << "\n" << r.out << r.err);
    REQUIRE(r.code == 1);
    auto bug = nlohmann::json::parse(slurp(cex))["bug"];
    XmlNode doc = parse_xml(slurp(dir + "/t.svg"));  // facts point into it
    SvgFacts f = facts(doc);
    // Folded by default, and a picture wider than a 1,920 px screen is
    // shown scaled to fit it (issue 50.20).
    CHECK(std::stod(doc.attr("width")) <= 1920);
    REQUIRE(f.accesses.size() == 2);
    std::multiset<std::string> drawn_agents, racing_agents;
    for (int i = 0; i < 2; ++i) {
      drawn_agents.insert(f.accesses[i]->attr("data-agent"));
      racing_agents.insert(bug["accesses"][i]["agent"].get<std::string>());
      CHECK(std::count(f.lanes.begin(), f.lanes.end(), bug["accesses"][i]["agent"]) == 1);
    }
    CHECK(drawn_agents == racing_agents);
    ++drawn;
  }
  CHECK(drawn >= 1);
  fs::remove_all(dir);
}
