// libFuzzer harness: the CI job's reader of a case's --summary-json, and
// everything the job does with a summary it accepted: judging the case,
// the table, and the JSON, JUnit and SARIF reports. None may throw.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "checker/cli/ci_job.hpp"
#include "checker/report/ci_reports.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace heddle;
  const std::string text(reinterpret_cast<const char*>(data), size);
  std::vector<CiOutcome> outs(2);
  outs[0].c = CiCase{"demo/x", "racy", {{"fixed", "false"}}, Verdict::race};
  outs[1].c = CiCase{"demo/y", "", {}, Verdict::ok};
  for (int i = 0; i < 2; ++i) {
    outs[i].summary = read_summary(text);
    outs[i].exit_code = i;  // judged once as a clean exit, once as "bug found"
    outs[i].output = "report text\n";
    classify(outs[i]);
  }
  CiOptions o;
  (void)format_ci_table(outs, o);
  (void)junit_report(outs, o);
  (void)sarif_report(outs, o).dump();
  (void)json_report(outs, o).dump();
  return 0;
}
