// Decoding a parsed entry: scopes of registers and labels ({ } blocks of
// inline asm declare their own), the shared-memory layout, operands, and
// each instruction's report location.
#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "checker/engine/errors.hpp"
#include "models/ptx/opcodes.hpp"
#include "models/ptx/program.hpp"

namespace heddle::ptx {
namespace {

// Bounds no kernel nvcc emits comes near (Hopper: 228 KiB of shared memory
// per SM, 255 registers per thread), so that a damaged file cannot make
// heddle allocate gigabytes.
constexpr std::size_t kMaxRegisters = 1 << 14;
constexpr std::uint64_t kMaxShared = 1 << 20;

struct Scope {
  int parent = -1;
  std::map<std::string, int> regs;
  std::map<std::string, int> labels;
};

// A demangled name for a function-local static (_ZZ...E2sD -> sD).
std::string display_name(const std::string& n) {
  if (n.rfind("_ZZ", 0) != 0) return n;
  std::size_t e = n.rfind('E');
  if (e == std::string::npos) return n;
  std::size_t i = e + 1, len = 0;
  while (i < n.size() && std::isdigit(static_cast<unsigned char>(n[i]))) len = len * 10 + (n[i++] - '0');
  return len > 0 && i + len <= n.size() ? n.substr(i, len) : n;
}

std::string base_name(const std::string& path) {
  std::size_t s = path.rfind('/');
  return s == std::string::npos ? path : path.substr(s + 1);
}

class Decoder {
 public:
  Decoder(const Module& m, const Function& f, Program& p) : m_(m), f_(f), p_(p) {}

  void run() {
    for (const Statement& g : m_.globals) declare_var(g);
    for (const ParamDecl& d : f_.params) {
      Symbol s{d.name, d.name, Space::param, static_cast<std::uint32_t>(p_.params.size()),
               static_cast<std::uint32_t>(d.count > 0 ? d.count : 8)};
      p_.params.push_back(static_cast<int>(p_.symbols.size()));
      p_.symbols.push_back(s);
    }
    collect();
    emit();
  }

 private:
  [[noreturn]] void fail(const Pos& at, const std::string& what) const {
    throw UsageError(fmt::format("{}:{}:{}: {}", m_.path, at.line, at.column, what));
  }

  void declare_var(const Statement& s) {
    if (s.space != ".shared")
      fail(s.pos, fmt::format("{} variable {}: only .shared variables are supported (PTX "
                              "front end, models/ptx/README.md)",
                              s.space, s.name));
    std::uint32_t align = static_cast<std::uint32_t>(std::max(s.align, 8));
    std::uint32_t elem = 1;
    if (auto t = parse_type(s.type.empty() ? "b8" : s.type.substr(1))) elem = t->bytes;
    std::uint64_t at = (std::uint64_t{p_.shared_bytes} + align - 1) / align * align;
    if (at == 0) at = std::max<std::uint64_t>(128, align);  // address 0 unused: a null pointer is an error
    std::uint64_t bytes = static_cast<std::uint64_t>(s.bytes) * elem;  // s.bytes <= 2^20 (parse)
    if (bytes == 0) bytes = 4096;  // extern (dynamic) shared memory: a fixed 4 KiB
    if (at + bytes > kMaxShared)
      fail(s.pos, fmt::format("shared variable {} ends at byte {}: heddle models at most {} bytes "
                              "of shared memory per CTA",
                              s.name, at + bytes, kMaxShared));
    p_.symbols.push_back(Symbol{s.name, display_name(s.name), Space::shared,
                                static_cast<std::uint32_t>(at), static_cast<std::uint32_t>(bytes)});
    p_.shared_bytes = static_cast<std::uint32_t>(at + bytes);
  }

  // The operands the interpreter reads must be there, vectors as wide as .v2/.v4 say.
  void check_operands(const Instr& in, const Pos& at) const {
    if (std::size_t need = operand_count(in); in.args.size() < need)
      fail(at, fmt::format("`{}` takes {} operands, {} given", in.opcode, need, in.args.size()));
    if (std::string why = wgmma_problem(in); !why.empty()) fail(at, fmt::format("`{}`: {}", in.opcode, why));
    if ((in.op == Op::ld || in.op == Op::st) && in.vec > 1) {
      const Arg& data = in.args[in.op == Op::st ? 1 : 0];
      if (data.kind != Arg::Kind::vector || data.elems.size() != static_cast<std::size_t>(in.vec))
        fail(at, fmt::format("`{}` moves a vector of {} registers: write {{%r1, ...}}", in.opcode, in.vec));
    }
  }

  // Pass 1: scopes, registers, labels and instruction indices.
  void collect() {
    scopes_.push_back(Scope{});
    std::vector<int> stack;
    int index = 0;
    for (const Statement& s : f_.body) {
      int cur = stack.empty() ? 0 : stack.back();
      switch (s.kind) {
        case Statement::Kind::block_begin:
          if (stack.empty()) {
            stack.push_back(0);
          } else {
            scopes_.push_back(Scope{cur, {}, {}});
            stack.push_back(static_cast<int>(scopes_.size()) - 1);
          }
          break;
        case Statement::Kind::block_end: stack.pop_back(); break;
        case Statement::Kind::reg_decl:
          // Each warp keeps 32 lanes of every register: bound them as nvcc's kernels are.
          if (p_.reg_names.size() + static_cast<std::size_t>(std::max(s.count, 1)) > kMaxRegisters)
            fail(s.pos, fmt::format("kernel {} declares more than {} registers", f_.name, kMaxRegisters));
          if (s.count == 0) add_reg(cur, s.name);
          for (int i = 0; i < s.count; ++i) add_reg(cur, s.name + std::to_string(i));
          break;
        case Statement::Kind::var_decl: declare_var(s); break;
        case Statement::Kind::label: scopes_[cur].labels[s.name] = index; break;
        case Statement::Kind::instruction: ++index; break;
        case Statement::Kind::loc: break;
      }
      scope_of_.push_back(stack.empty() ? 0 : stack.back());
    }
  }

  void add_reg(int scope, const std::string& name) {
    scopes_[scope].regs[name] = static_cast<int>(p_.reg_names.size());
    p_.reg_names.push_back(name);
  }

  template <class F>
  int lookup(int scope, F&& table) const {
    for (int s = scope; s >= 0; s = scopes_[s].parent) {
      const auto& t = table(scopes_[s]);
      if (auto it = t.find(key_); it != t.end()) return it->second;
    }
    return -1;
  }

  Arg name_arg(const std::string& n, int scope, const Pos& at, bool label_ok) {
    Arg a;
    key_ = n;
    if (int r = lookup(scope, [](const Scope& s) -> const auto& { return s.regs; }); r >= 0) {
      a.kind = Arg::Kind::reg;
      a.reg = r;
      return a;
    }
    if (label_ok) {
      if (int l = lookup(scope, [](const Scope& s) -> const auto& { return s.labels; }); l >= 0) {
        a.kind = Arg::Kind::label;
        a.imm = l;
        return a;
      }
    }
    for (std::size_t i = 0; i < p_.symbols.size(); ++i)
      if (p_.symbols[i].name == n) {
        a.kind = Arg::Kind::symbol;
        a.symbol = static_cast<int>(i);
        return a;
      }
    static const std::map<std::string, Special> specials = {
        {"%tid", Special::tid},       {"%ntid", Special::ntid},     {"%ctaid", Special::ctaid},
        {"%nctaid", Special::nctaid}, {"%laneid", Special::laneid}, {"%warpid", Special::warpid},
        {"%nwarpid", Special::nwarpid}, {"%lanemask_lt", Special::lanemask_lt},
        {"%cluster_ctarank", Special::cluster_ctarank}, {"%cluster_nctarank", Special::cluster_nctarank},
        {"%clusterid", Special::clusterid}, {"%nclusterid", Special::nclusterid},
        {"%cluster_ctaid", Special::cluster_ctaid}, {"%cluster_nctaid", Special::cluster_nctaid},
        {"%is_explicit_cluster", Special::is_explicit_cluster}};
    std::string root = n.substr(0, n.find('.'));
    if (auto it = specials.find(root); it != specials.end()) {
      a.kind = Arg::Kind::special;
      a.special = it->second;
      if (n.size() > root.size()) {
        if (n.size() != root.size() + 2 || n.back() < 'x' || n.back() > 'z')
          fail(at, fmt::format("unknown special register {} (components are .x, .y, .z)", n));
        a.component = n.back() - 'x';
      }
      return a;
    }
    fail(at, fmt::format("unknown name {} (not a declared register, label, shared variable, "
                         "parameter or supported special register)",
                         n));
  }

  Arg arg(const Operand& o, int scope, const Pos& at, bool label_ok) {
    Arg a;
    switch (o.kind) {
      case Operand::Kind::name: return name_arg(o.name, scope, at, label_ok);
      case Operand::Kind::integer:
      case Operand::Kind::bits: a.imm = o.value; return a;
      case Operand::Kind::sink: a.kind = Arg::Kind::sink; return a;
      case Operand::Kind::vector:
      case Operand::Kind::pair:
        a.kind = o.kind == Operand::Kind::vector ? Arg::Kind::vector : Arg::Kind::pair;
        for (const Operand& e : o.elems) a.elems.push_back(arg(e, scope, at, false));
        return a;
      case Operand::Kind::address:
        if (!o.name.empty()) a = name_arg(o.name, scope, at, false);
        a.address = true;
        a.imm += o.value;
        if (a.kind != Arg::Kind::reg && a.kind != Arg::Kind::symbol && !o.name.empty())
          fail(at, "an address must be a register or a variable, plus an offset");
        for (const Operand& e : o.elems) a.elems.push_back(arg(e, scope, at, false));
        return a;
    }
    return a;
  }

  // The report location of the instruction at `line` under the current .loc.
  std::source_location location(int line) {
    std::string file = m_.path, prefix;
    const SourceLoc* pick = nullptr;
    for (const SourceLoc& l : loc_) {
      auto f = m_.files.find(l.file);
      if (f == m_.files.end() || l.line == 0) continue;
      if (pick == nullptr) pick = &l;
      if (f->second.size() > 3 && f->second.ends_with(".cu")) {
        pick = &l;  // the innermost position in the .cu file itself (not a header)
        break;
      }
    }
    if (pick != nullptr)
      file = fmt::format("{}:{} via {}", m_.files.at(pick->file), pick->line, base_name(m_.path));
    p_.texts.push_back(file);
    p_.locs.push_back(LocRecord{p_.texts.back().c_str(), "", static_cast<unsigned>(line), 0});
    return make_location(&p_.locs.back());
  }

  // Pass 2: decode the instructions.
  void emit() {
    for (std::size_t i = 0; i < f_.body.size(); ++i) {
      const Statement& s = f_.body[i];
      if (s.kind == Statement::Kind::loc) {
        bool zero = s.locs.empty() || s.locs.front().line == 0;
        if (!zero) loc_ = s.locs;
        continue;
      }
      if (s.kind != Statement::Kind::instruction) continue;
      Instr in;
      if (!decode_opcode(s.opcode, in))
        fail(s.pos, fmt::format("unsupported PTX instruction `{}` in kernel {} (see "
                                "models/ptx/README.md for what the PTX front end interprets)",
                                s.opcode, f_.name));
      in.line = s.pos.line;
      in.loc = location(s.pos.line);
      if (!s.guard.empty()) {
        Arg g = name_arg(s.guard, scope_of_[i], s.pos, false);
        if (g.kind != Arg::Kind::reg) fail(s.pos, "a guard must be a predicate register");
        in.guard = g.reg;
        in.guard_negated = s.guard_negated;
      }
      for (const Operand& o : s.operands) in.args.push_back(arg(o, scope_of_[i], s.pos, in.op == Op::bra));
      check_operands(in, s.pos);
      if (in.op == Op::bra) {
        if (in.args.size() != 1 || in.args[0].kind != Arg::Kind::label)
          fail(s.pos, "bra needs one label operand");
        in.target = static_cast<int>(in.args[0].imm);
      }
      p_.code.push_back(std::move(in));
    }
    Instr end;  // falling off the end of the body ends the thread
    end.op = Op::exit;
    end.opcode = "ret";
    end.line = f_.pos.line;
    end.loc = location(f_.pos.line);
    p_.code.push_back(std::move(end));
  }

  const Module& m_;
  const Function& f_;
  Program& p_;
  std::vector<Scope> scopes_;
  std::vector<int> scope_of_;  // per body statement
  std::vector<SourceLoc> loc_;
  std::string key_;
};

}  // namespace

bool Instr::has(const char* mod) const {
  return std::find(mods.begin(), mods.end(), mod) != mods.end();
}

Program decode(const Module& module, const std::string& kernel) {
  std::vector<std::string> entries;
  for (const Function& f : module.functions) {
    if (!f.entry) continue;
    entries.push_back(f.name);
    if (f.name != kernel) continue;
    Program p;
    p.kernel = kernel;
    p.ptx_path = module.path;
    if (f.cluster_dims.size() > 3 ||
        std::any_of(f.cluster_dims.begin(), f.cluster_dims.end(), [](int d) { return d < 1; }))
      throw UsageError(fmt::format("{}:{}: .reqnctapercluster of kernel {} takes 1 to 3 dimensions "
                                   "of at least 1",
                                   module.path, f.pos.line, kernel));
    for (std::size_t d = 0; d < 3; ++d)
      p.cluster_dims[d] = f.cluster_dims.empty() ? 0 : d < f.cluster_dims.size() ? f.cluster_dims[d] : 1;
    p.explicit_cluster = f.explicit_cluster || !f.cluster_dims.empty();
    Decoder(module, f, p).run();
    return p;
  }
  throw UsageError(fmt::format("{} has no kernel entry {}; its entries: {}", module.path, kernel,
                               entries.empty() ? "none" : fmt::format("{}", fmt::join(entries, ", "))));
}

}  // namespace heddle::ptx
