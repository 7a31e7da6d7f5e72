#include "test/support/harness.hpp"

#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#ifndef HEDDLE_BINARY
#error "HEDDLE_BINARY must name the built heddle executable"
#endif

namespace heddle::test {

RunResult run(const std::string& kernel, const std::map<std::string, std::string>& params,
              RunConfig config) {
  const Kernel& k = find_kernel(kernel);
  return explore(k, k.resolve(params), config);
}

Outcomes outcomes(const std::string& kernel, const std::map<std::string, std::string>& params,
                  RunConfig config) {
  const Kernel& k = find_kernel(kernel);
  config.stop_at_first_bug = false;
  config.minimize = false;  // outcomes only: no counterexample is shown
  Outcomes o;
  o.result = explore(k, k.resolve(params), config, [&](const ExecutionRecord& ex, Ending) {
    if (!ex.bug()) {
      o.verdicts.insert("ok");
      o.final_states.insert(ex.final_state());
    }
    // Every kind met, not only the first bug's (see Execution::met).
    for (int k = static_cast<int>(Verdict::race); k <= static_cast<int>(kLastVerdict); ++k)
      if (ex.met(static_cast<Verdict>(k))) o.verdicts.insert(verdict_name(static_cast<Verdict>(k)));
  });
  return o;
}

RunResult replay(const Schedule& schedule) {
  const Kernel& k = find_kernel(schedule.kernel);
  return explore(k, k.resolve(schedule.params), replay_config(schedule));
}

std::string temp_dir() {
  char tmpl[] = "/tmp/heddle-test-XXXXXX";
  const char* d = mkdtemp(tmpl);
  return d ? d : "/tmp";
}

std::string slurp(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

CliResult cli(const std::string& args) {
  std::string dir = temp_dir();
  std::string cmd = std::string(HEDDLE_BINARY) + " " + args + " >" + dir + "/out 2>" + dir + "/err";
  int status = std::system(cmd.c_str());
  CliResult r;
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = slurp(dir + "/out");
  r.err = slurp(dir + "/err");
  return r;
}

std::string source_line(const std::string& path, const std::string& marker) {
  std::ifstream f(std::string(HEDDLE_SOURCE_ROOT) + "/" + path);
  int n = 0;
  for (std::string line; std::getline(f, line);) {
    ++n;
    if (line.find(marker) != std::string::npos) return path + ":" + std::to_string(n);
  }
  return path + ": marker not found: " + marker;
}

std::string without_timing(const std::string& text) {
  std::string out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (line.rfind("summary:", 0) != 0) out += line + "\n";
  return out;
}

}  // namespace heddle::test
