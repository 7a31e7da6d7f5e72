// ptx_census: each distinct opcode (with its modifiers) of a PTX file's
// kernel entries, how often it occurs, and whether heddle's PTX front end
// interprets it. The verdict is the real decoder's (models/ptx/decode.cpp,
// census mode): every instruction of every entry is decoded, and each
// refusal is kept with its reason instead of stopping at the first.
// Usage: ptx_census FILE.ptx [ENTRY-PREFIX] (the entries whose mangled
// names start with it; all by default). Output (tab-separated, one line per
// opcode): interpreted|refused, count, opcode, first PTX line, reason.
// bench/ptx_census.py turns it into the table of bench/RESULTS.md.
#include <fmt/format.h>

#include <exception>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "checker/engine/errors.hpp"
#include "models/ptx/program.hpp"

namespace {
using namespace heddle::ptx;

struct Row {
  long count = 0, refused = 0;
  int first_line = 0;
  std::string why;  // the first refusal's reason
};

// The reason without its "FILE:LINE:COL: " prefix.
std::string reason(const std::string& why) {
  std::size_t at = why.find(": ");
  return at == std::string::npos ? why : why.substr(at + 2);
}

int census(const std::string& path, const std::string& only) {
  Module m = parse_file(path);
  std::map<std::string, Row> rows;
  long entries = 0, instructions = 0;
  for (const Function& f : m.functions) {
    if (!f.entry || f.name.rfind(only, 0) != 0) continue;  // the entries whose names start so
    ++entries;
    std::vector<Refusal> refusals;
    // A launch sizes the dynamic shared memory (extern .shared); the census
    // gives it the sm_90 maximum per block, 227 KiB, as CUTLASS's launches ask.
    decode(m, f.name, 227 * 1024, &refusals);
    std::set<int> refused_lines;
    for (const Refusal& r : refusals) {
      refused_lines.insert(r.line);
      Row& row = rows[r.what];
      if (row.why.empty()) row.why = reason(r.why), row.first_line = r.line;
      if (r.what.find(" variable") != std::string::npos) ++row.count, ++row.refused;
    }
    for (const Statement& s : f.body) {
      if (s.kind != Statement::Kind::instruction) continue;
      ++instructions;
      Row& row = rows[s.opcode];
      ++row.count;
      if (row.first_line == 0) row.first_line = s.pos.line;
      if (refused_lines.count(s.pos.line) != 0) ++row.refused;
    }
  }
  long refused = 0;
  for (const auto& [op, row] : rows) refused += row.refused > 0;
  fmt::print("# {}: {} entries, {} instructions, {} distinct opcodes, {} refused\n", path, entries,
             instructions, rows.size(), refused);
  for (const auto& [op, row] : rows)
    fmt::print("{}\t{}\t{}\t{}\t{}\n", row.refused > 0 ? "refused" : "interpreted", row.count, op,
               row.first_line, row.why);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || argc > 3) {
    fmt::print(stderr, "usage: ptx_census FILE.ptx [ENTRY-PREFIX]\n");
    return 2;
  }
  try {
    return census(argv[1], argc == 3 ? argv[2] : "");
  } catch (const std::exception& e) {
    fmt::print(stderr, "ptx_census: error: {}\n", e.what());
    return 2;
  }
}
