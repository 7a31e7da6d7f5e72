// The decoder's view of the module's functions (PTX ISA 7): which .func a
// call names, and the builtins CUDA's printf and assert compile to.
#include <fmt/format.h>

#include <stdexcept>

#include "models/ptx/opcodes.hpp"

namespace heddle::ptx {

const Function* find_function(const Module& m, const std::string& name) {
  const Function* found = nullptr;
  for (const Function& f : m.functions)
    if (f.name == name && !f.entry && (found == nullptr || !f.body.empty())) found = &f;
  return found;
}

int callee_index(Program& p, const Module& m, const std::string& name) {
  for (std::size_t i = 0; i < p.funcs.size(); ++i)
    if (p.funcs[i].name == name) return static_cast<int>(i);
  const Function* f = find_function(m, name);
  if (f == nullptr) throw std::invalid_argument(fmt::format("call of {}, which is not a .func of this file", name));
  Func fn{name, Func::Builtin::none, -1, 0, {}, {}, 0, 0};
  if (f->body.empty()) {
    if (name == "vprintf") fn.builtin = Func::Builtin::vprintf;
    else if (name == "__assertfail") fn.builtin = Func::Builtin::assertfail;
    else
      throw std::invalid_argument(fmt::format("call of {}, which is declared without a body (defined "
                                              "in another module: heddle checks one PTX file)",
                                              name));
  }
  p.funcs.push_back(std::move(fn));
  return static_cast<int>(p.funcs.size()) - 1;
}

std::string param_problem(const Instr& in, const Program& p) {
  const Arg& a = in.args.at(in.op == Op::st ? 0 : 1);
  if (a.kind != Arg::Kind::symbol) return "";  // unsupported_form() names it
  const Symbol& s = p.symbols[static_cast<std::size_t>(a.symbol)];
  const std::int64_t end = a.imm + in.type.bytes * in.vec;
  if (!s.frame && in.op == Op::st) return fmt::format("`{}` writes kernel parameter {}", in.opcode, s.name);
  if (!s.frame && (a.imm < 0 || end > static_cast<std::int64_t>(s.bytes)))
    return fmt::format("`{}`: ld.param reads bytes [{}:{}] of parameter {}, which has {}", in.opcode,
                       a.imm, end, s.name, s.bytes);
  if (s.frame && (a.imm < 0 || end > static_cast<std::int64_t>(s.bytes)))
    return fmt::format("`{}` accesses bytes [{}:{}] of {}, which has {}", in.opcode, a.imm, end,
                       s.name, s.bytes);
  return "";
}

// A demangled name for a function-local static (_ZZ...E2sD -> sD).
std::string display_name(const std::string& n) {
  if (n.rfind("_ZZ", 0) != 0) return n;
  std::size_t e = n.rfind('E');
  if (e == std::string::npos) return n;
  std::size_t i = e + 1, len = 0;
  while (i < n.size() && std::isdigit(static_cast<unsigned char>(n[i]))) len = len * 10 + (n[i++] - '0');
  return len > 0 && i + len <= n.size() ? n.substr(i, len) : n;
}

std::vector<std::string> module_warnings(const Module& m, const std::string& kernel) {
  std::vector<std::string> out;
  if (m.target.find("sm_90a") == std::string::npos) {
    std::string t = m.target.rfind(".target", 0) == 0 ? m.target.substr(7) : m.target;
    t.erase(0, t.find_first_not_of(" \t"));
    out.push_back(fmt::format("{}: the PTX targets `{}`, heddle models Hopper (compile with "
                              "-arch=sm_90a)", m.path, t.empty() ? "nothing" : t));
  }
  for (const Function& f : m.functions) {
    if (f.name != kernel) continue;
    bool loc = false;
    for (const Statement& s : f.body) loc = loc || s.kind == Statement::Kind::loc;
    if (!loc)
      out.push_back(fmt::format("{}: kernel {} has no .loc lines: reports give PTX lines only "
                                "(compile with -lineinfo for CUDA source lines)", m.path, kernel));
  }
  return out;
}

namespace {
// " via :76": the call sites of an inlined __device__ helper, from the
// .loc's inlined_at chain outwards past `pick` (a line of the same file
// alone, another file by name), so the helper's line does not hide where
// the kernel called it (issue 50.6).
std::string call_sites(const Module& m, const std::vector<SourceLoc>& locs, const SourceLoc* pick) {
  std::string out;
  const SourceLoc* last = pick;
  for (const SourceLoc* l = pick + 1; l < locs.data() + locs.size(); ++l) {
    auto f = m.files.find(l->file);
    if (f == m.files.end() || l->line == 0 || (l->file == last->file && l->line == last->line))
      continue;
    out += l->file == pick->file ? fmt::format(" via :{}", l->line)
                                 : fmt::format(" via {}:{}", f->second, l->line);
    last = l;
  }
  return out;
}
}  // namespace

std::source_location report_location(Program& p, const Module& m, const std::vector<SourceLoc>& locs,
                                     int line) {
  std::string file = m.path;
  const SourceLoc* pick = nullptr;
  for (const SourceLoc& l : locs) {
    auto f = m.files.find(l.file);
    if (f == m.files.end() || l.line == 0) continue;
    if (pick == nullptr) pick = &l;
    if (f->second.size() > 3 && f->second.ends_with(".cu")) {
      pick = &l;  // the innermost position in the .cu file itself (not a header)
      break;
    }
  }
  if (pick != nullptr) {
    std::size_t slash = m.path.rfind('/');
    std::string base = slash == std::string::npos ? m.path : m.path.substr(slash + 1);
    file = fmt::format("{}:{}{} via {}", m.files.at(pick->file), pick->line,
                       call_sites(m, locs, pick), base);
  }
  p.texts.push_back(file);
  p.locs.push_back(LocRecord{p.texts.back().c_str(), "", static_cast<unsigned>(line), 0});
  return make_location(&p.locs.back());
}

}  // namespace heddle::ptx
