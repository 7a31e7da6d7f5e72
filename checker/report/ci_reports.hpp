// Machine-readable reports of the CI job: JUnit XML, SARIF 2.1.0, JSON.
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "checker/report/ci_results.hpp"

namespace heddle {

/// JUnit XML: one testcase per kernel/preset, a failure (message = why,
/// text = the counterexample) for each unexpected outcome.
std::string junit_report(const std::vector<CiOutcome>& outs, const CiOptions& o);

/// SARIF 2.1.0: one result per bug found, always located (a race at both of
/// its accesses' source lines), with the counterexample as a code flow.
/// Expected bugs are level "note", others "error".
nlohmann::json sarif_report(const std::vector<CiOutcome>& outs, const CiOptions& o);

/// The full summary: options, totals, and every case with its run summary.
nlohmann::json json_report(const std::vector<CiOutcome>& outs, const CiOptions& o);

/// Writes report `kind` (junit, sarif, json) to `file`; UsageError when it cannot.
void write_ci_report(const std::string& kind, const std::string& file,
                     const std::vector<CiOutcome>& outs, const CiOptions& o);

}  // namespace heddle
