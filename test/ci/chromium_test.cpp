// Renders the pipeline timeline in headless Chromium and checks the
// screenshot's pixels: lane backgrounds and the two red-framed accesses.
#include <catch2/catch.hpp>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "checker/report/timeline.hpp"
#include "test/ci/ci_support.hpp"
#include "test/ci/mini_xml.hpp"
#include "test/ci/png_probe.hpp"

using namespace heddle::test;
namespace fs = std::filesystem;

namespace heddle::test {
void pipeline_timeline(const std::string& dir);  // timeline_test.cpp
Timeline counterexample_timeline(const std::string& kernel,
                                 const std::map<std::string, std::string>& params);  // golden/
}

namespace {
std::string find_chromium() {
  for (const char* name : {"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"})
    if (on_path(name)) return name;
  return "";
}

/// Installs Debian's chromium when missing and allowed (root with apt-get).
std::string chromium_or_install() {
  std::string found = find_chromium();
  if (!found.empty() || geteuid() != 0 || !on_path("apt-get")) return found;
  [[maybe_unused]] int rc = std::system(
      "DEBIAN_FRONTEND=noninteractive timeout 900 apt-get install -y -q --no-install-recommends "
      "chromium >/dev/null 2>&1");
  return find_chromium();
}

bool near(std::uint32_t rgb, std::uint32_t want, int tolerance) {
  for (int shift : {16, 8, 0}) {
    int a = static_cast<int>(rgb >> shift & 0xff), b = static_cast<int>(want >> shift & 0xff);
    if (std::abs(a - b) > tolerance) return false;
  }
  return true;
}

double num(const XmlNode& n, const char* key) { return std::stod(n.attr(key)); }

/// Screenshots `dir`/NAME.svg at its own size in headless Chromium.
Png screenshot(const std::string& chromium, const std::string& dir, const std::string& name,
               const XmlNode& svg) {
  int w = static_cast<int>(num(svg, "width")), h = static_cast<int>(num(svg, "height"));
  std::string cmd = "timeout 120 " + chromium +
                    " --headless --no-sandbox --disable-gpu --hide-scrollbars "
                    "--force-device-scale-factor=1 --window-size=" +
                    std::to_string(w) + "," + std::to_string(h) + " --screenshot=" + dir + "/" +
                    name + ".png file://" + dir + "/" + name + ".svg >" + dir + "/chromium.log 2>&1";
  int rc = std::system(cmd.c_str());
  INFO(slurp(dir + "/chromium.log"));
  REQUIRE(rc == 0);
  Png png = read_png(dir + "/" + name + ".png");
  CHECK(png.width == static_cast<std::uint32_t>(w));
  CHECK(png.height == static_cast<std::uint32_t>(h));
  return png;
}

/// The first rect child of `g` (nullptr when none).
const XmlNode* rect_of(const XmlNode& g) {
  for (const auto& c : g.children)
    if (c.name == "rect") return &c;
  return nullptr;
}
}  // namespace

TEST_CASE("the timeline renders in headless Chromium: lanes and two highlighted accesses",
          "[ci][slow]") {
  std::string chromium = chromium_or_install();
  if (chromium.empty()) {
    WARN("skipped: no chromium, and it cannot be installed here (install Debian's chromium "
         "package to run this test)");
    return;
  }
  std::string dir = temp_dir();
  pipeline_timeline(dir);
  XmlNode svg = parse_xml(slurp(dir + "/t.svg"));
  Png png = screenshot(chromium, dir, "t", svg);
  if (!png.decoded) {
    WARN("screenshot pixels not checked: heddle's tests were built without zlib");
    return;
  }
  std::size_t lanes = 0, highlighted = 0, plain = 0;
  for (auto* n : find_all(svg, "g")) {
    const XmlNode* rect = rect_of(*n);
    if (rect == nullptr) continue;
    double x = num(*rect, "x"), y = num(*rect, "y"), rw = num(*rect, "width"), rh = num(*rect, "height");
    auto px = [&](double dx, double dy) {
      return png.rgb(static_cast<std::uint32_t>(x + dx), static_cast<std::uint32_t>(y + dy));
    };
    if (n->has_class("lane")) {  // the lane's background, left of its label
      lanes += near(px(4, 4), std::stoul(rect->attr("fill").substr(1), nullptr, 16), 3);
    } else if (n->has_class("race-access")) {  // red frame, pink inside
      highlighted += near(px(rw / 2, 0), 0xd40000, 40) && near(px(rw - 5, rh - 5), 0xffdede, 12);
    } else if (n->has_class("step")) {
      plain += !near(px(rw / 2, 0), 0xd40000, 60);
    }
  }
  CHECK(lanes == 3);
  CHECK(highlighted == 2);  // the two access markers
  CHECK(plain == 3);        // the operations' boxes: an access is drawn after its operation
  fs::remove_all(dir);
}

TEST_CASE("the folded timeline renders in headless Chromium: its fold, its lanes, its accesses",
          "[ci][slow]") {
  std::string chromium = chromium_or_install();
  if (chromium.empty()) {
    WARN("skipped: no chromium, and it cannot be installed here");
    return;
  }
  std::string dir = temp_dir();
  std::string text = timeline_svg(counterexample_timeline("timeline/rounds", {}));
  { std::ofstream(dir + "/folded.svg") << text; }
  XmlNode svg = parse_xml(text);
  Png png = screenshot(chromium, dir, "folded", svg);
  CHECK(png.width <= 1600);
  if (!png.decoded) {
    WARN("screenshot pixels not checked: heddle's tests were built without zlib");
    return;
  }
  std::size_t folds = 0, highlighted = 0, labelled = 0;
  for (auto* n : find_all(svg, "g")) {
    const XmlNode* rect = rect_of(*n);
    if (rect == nullptr) continue;
    double x = num(*rect, "x"), y = num(*rect, "y"), rw = num(*rect, "width");
    auto px = [&](double dx, double dy) {
      return png.rgb(static_cast<std::uint32_t>(x + dx), static_cast<std::uint32_t>(y + dy));
    };
    if (n->has_class("fold")) folds += near(px(rw / 2, 40), 0xe4e6ea, 8);
    if (n->has_class("race-access")) highlighted += near(px(rw / 2, 0), 0xd40000, 40);
    if (n->has_class("lane")) {  // the lane's name, in dark ink, left of the boxes
      bool ink = false;
      for (int dx = 12; dx < 60 && !ink; ++dx)
        for (int dy = 20; dy < 60 && !ink; ++dy) ink = (px(dx, dy) & 0xff) < 0x60;
      labelled += ink;
    }
  }
  CHECK(folds >= 1);
  CHECK(highlighted == 2);
  CHECK(labelled == 3);
  fs::remove_all(dir);
}
