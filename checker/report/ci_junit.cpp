// JUnit XML in the shape CI viewers read (Jenkins, GitLab, GitHub actions):
// testsuites > testsuite > testcase > failure|error, system-out.
#include <fmt/format.h>

#include <ctime>

#include "checker/engine/interrupt.hpp"
#include "checker/report/ci_reports.hpp"

namespace heddle {
namespace {
/// Escapes text for XML attributes and content; drops characters XML 1.0 forbids.
std::string xml(const std::string& s) {
  std::string out;
  for (unsigned char ch : s) {
    switch (ch) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default:
        if (ch >= 0x20 || ch == '\n' || ch == '\t' || ch == '\r') out += static_cast<char>(ch);
    }
  }
  return out;
}

std::string class_name(const std::string& kernel) {
  std::string s = kernel;
  for (char& ch : s)
    if (ch == '/') ch = '.';
  return s;
}

// A case the job's interrupt stopped (or kept from starting) before any bug.
bool stopped(const CiOutcome& r) {
  return r.interrupted && !r.passed && !r.error &&
         (!r.summary.is_object() || r.summary.value("report", nlohmann::json()).is_null());
}

std::string testcase(const CiOutcome& r, const CiOptions& o) {
  std::string out = fmt::format("    <testcase classname=\"{}\" name=\"{}\" time=\"{:.3f}\">\n",
                                xml(class_name(r.c.kernel)),
                                xml(r.c.preset.empty() ? "defaults" : r.c.preset), r.seconds);
  std::string body = r.reason + "\n\n" + r.output;
  if (!r.artifact.empty())
    body += fmt::format("replay with: {} replay {}\n", o.program, r.artifact);
  if (stopped(r))  // interrupted before a verdict: neither a failure nor a pass
    out += fmt::format("      <skipped message=\"{}\"/>\n", xml(r.reason));
  else if (r.error)
    out += fmt::format("      <error message=\"{}\" type=\"heddle.error\">{}</error>\n",
                       xml(r.reason), xml(r.reason + "\n\n" + r.errors));
  else if (!r.passed)
    out += fmt::format("      <failure message=\"{}\" type=\"{}\">{}</failure>\n", xml(r.reason),
                       xml("heddle." + r.verdict.substr(0, r.verdict.find(' '))), xml(body));
  out += fmt::format("      <system-out>{}</system-out>\n", xml(fmt::format(
      "verdict: {}\nexpected: {}\n\n{}", r.verdict,
      r.c.expect == Verdict::ok ? (r.c.exhaustive ? "no bug, exhaustive" : "no bug")
                                : verdict_name(r.c.expect),
      r.output)));
  if (!r.errors.empty())
    out += fmt::format("      <system-err>{}</system-err>\n", xml(r.errors));
  out += "    </testcase>\n";
  return out;
}
}  // namespace

std::string junit_report(const std::vector<CiOutcome>& outs, const CiOptions& o) {
  std::size_t failures = 0, errors = 0, skipped = 0;
  double seconds = 0;
  for (const auto& r : outs) {
    skipped += stopped(r);
    failures += !r.passed && !r.error && !stopped(r);
    errors += r.error;
    seconds += r.seconds;
  }
  char stamp[32] = "";
  std::time_t now = std::time(nullptr);
  std::strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%S", std::gmtime(&now));
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out += fmt::format("<testsuites name=\"heddle\" tests=\"{}\" failures=\"{}\" errors=\"{}\" "
                     "time=\"{:.3f}\">\n", outs.size(), failures, errors, seconds);
  out += fmt::format("  <testsuite name=\"heddle\" tests=\"{}\" failures=\"{}\" errors=\"{}\" "
                     "skipped=\"{}\" time=\"{:.3f}\" timestamp=\"{}\">\n",
                     outs.size(), failures, errors, skipped, seconds, stamp);
  if (o.interrupted_by != 0)
    out += fmt::format("    <properties>\n      <property name=\"interrupted\" value=\"{}\"/>\n"
                       "    </properties>\n", xml(signal_name(o.interrupted_by)));
  for (const auto& r : outs) out += testcase(r, o);
  out += "  </testsuite>\n</testsuites>\n";
  return out;
}

}  // namespace heddle
