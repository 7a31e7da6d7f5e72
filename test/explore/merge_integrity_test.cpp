// heddle merge trusts no shard (issue 51.3): each shard must be of this run
// (kernel, parameters, strategy, heddle version, shard I/N), and a bug it
// reports must be told consistently and replay for this kernel. Otherwise
// merge is an input error (exit 2), never a verdict.
#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <functional>

#include "test/support/harness.hpp"

using nlohmann::json;

namespace {
struct Shards {
  std::string dir = heddle::test::temp_dir();
  std::string files;
  // Runs `kernel_args` as n shards, summaries s0.json ... in `dir`.
  Shards(const std::string& kernel_args, int n, const std::string& prefix = "s") {
    for (int s = 0; s < n; ++s) {
      auto r = heddle::test::cli(fmt::format("run -q {} --shard {}/{} --summary-json {}/{}{}.json "
                                             "--out /dev/null",
                                             kernel_args, s, n, dir, prefix, s));
      REQUIRE((r.code == 0 || r.code == 1));
      files += fmt::format(" {}/{}{}.json", dir, prefix, s);
    }
  }
  json read(int s) const { return json::parse(heddle::test::slurp(fmt::format("{}/s{}.json", dir, s))); }
  void write(int s, const json& j) const { std::ofstream(fmt::format("{}/s{}.json", dir, s)) << j.dump(); }
  // The shard that reports the bug.
  int bug_shard(int n) const {
    for (int s = 0; s < n; ++s)
      if (!read(s)["split"]["bug_item"].is_null()) return s;
    return -1;
  }
};

// Merges after `edit` changed shard `s`: must be exit 2 with `words`.
void refused(const Shards& sh, int s, const std::function<void(json&)>& edit,
             const std::string& words) {
  json saved = sh.read(s), j = saved;
  edit(j);
  sh.write(s, j);
  auto r = heddle::test::cli("merge" + sh.files);
  INFO(r.out << r.err);
  CHECK(r.code == 2);
  CHECK(r.out.empty());
  CHECK_THAT(r.err, Catch::Contains(words));
  sh.write(s, saved);
}
}  // namespace

TEST_CASE("merge: a shard whose bug was dropped, replaced or emptied is an error, not a verdict",
          "[split][merge][hostile]") {
  Shards sh("demo/handoff --param fixed=false", 3);  // its race takes 2 steps
  const int b = sh.bug_shard(3);
  REQUIRE(b >= 0);
  REQUIRE(heddle::test::cli("merge" + sh.files).code == 1);  // as written: the race
  // Before: merged to "no bug found", exit 0 (a bug was lost).
  refused(sh, b, [](json& j) { j["split"].erase("bug_item"); }, "and its \"bug_item\" (none) disagree");
  refused(sh, b, [](json& j) { j["split"]["bug_item"] = nullptr; }, "disagree");
  refused(sh, b, [](json& j) {
    j["split"].erase("bug_item");
    j["verdict"] = "no_bug_found";
  }, "an item of it stopped at a bug");
  refused(sh, b, [](json& j) { j["split"]["schedule"] = nullptr; }, "its bug has no schedule");
  // Another kernel's schedule, as this kernel's race.
  auto other = heddle::test::cli("run -q demo/lost_update --out " + sh.dir + "/o.json");
  REQUIRE(other.code == 1);
  {
    const std::string text = heddle::test::slurp(sh.dir + "/o.json");
    refused(sh, b, [&](json& j) { j["split"]["schedule"] = text; }, "is for kernel demo/lost_update");
  }
  // An empty schedule that still names this kernel and its race.
  refused(sh, b, [](json& j) {
    json s = json::parse(j["split"]["schedule"].get<std::string>());
    s["steps"] = json::array();
    j["split"]["schedule"] = s.dump();
  }, "schedule diverged at step 1");
  // A schedule whose recorded bug is not the verdict's.
  refused(sh, b, [](json& j) { j["verdict"] = "deadlock"; }, "does not record the deadlock");
  // The bug item names an item that did not stop at a bug.
  refused(sh, b, [](json& j) {
    for (auto& row : j["split"]["outcomes"]) row[6] = false;
  }, "is not one of its items that stopped at a bug");
}

TEST_CASE("merge: a shard of another heddle version or without its verdict is an error",
          "[split][merge][hostile]") {
  Shards sh("classic/lastzero --param n=5", 2);
  REQUIRE(heddle::test::cli("merge" + sh.files).code == 0);
  refused(sh, 1, [](json& j) { j["heddle_version"] = "0.0.9"; }, "not written by this heddle version");
  refused(sh, 1, [](json& j) { j.erase("heddle_version"); }, "not written by this heddle version");
  refused(sh, 1, [](json& j) { j.erase("verdict"); }, "\"verdict\" must be");
  // A verdict of a bug with no bug item in a verified shard.
  refused(sh, 0, [](json& j) { j["verdict"] = "race"; }, "disagree");
}
