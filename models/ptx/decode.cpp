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
constexpr std::uint64_t kMaxFrame = 1 << 16;  // a function's .local and .param bytes

struct BlockScope {
  int parent = -1;
  std::map<std::string, int> regs;
  std::map<std::string, int> labels;
  std::map<std::string, int> vars;  // frame variables (.local, .param) declared here
};




class Decoder {
 public:
  /// Decodes `f`, function `func` of `p` (0: the kernel entry), after the code so far.
  Decoder(const Module& m, const Function& f, Program& p, std::uint32_t dynamic_shared, int func,
          std::vector<Refusal>* refusals, bool launched = false)
      : m_(m), f_(f), p_(p), dynamic_shared_(dynamic_shared), func_(func),
        base_(static_cast<int>(p.code.size())), refusals_(refusals), launched_(launched) {
    scopes_.push_back(BlockScope{});
  }

  void run() {
    if (func_ == 0) {
      for (const Statement& g : m_.globals) guarded(g, g.space + " variable", [&] { declare_var(g); });
      for (const ParamDecl& d : f_.params) {
        Symbol s{d.name, d.name, Space::param, static_cast<std::uint32_t>(p_.params.size()), 8, {},
                 d.pos.line, {}};
        if (auto t = parse_type(d.type.empty() ? "" : d.type.substr(1))) s.type = *t;
        if (d.count > 0)  // an array (a struct by value): count elements of its type
          s.bytes = static_cast<std::uint32_t>(d.count * std::max(s.type.bytes, 1));
        p_.params.push_back(static_cast<int>(p_.symbols.size()));
        p_.symbols.push_back(s);
      }
    } else {  // a .func's parameters and return values live in its frame
      for (const ParamDecl& d : f_.params) func().params.push_back(frame_param(d));
      for (const ParamDecl& d : f_.rets) func().rets.push_back(frame_param(d));
    }
    func().reg_begin = static_cast<int>(p_.reg_names.size());
    collect();
    func().reg_end = static_cast<int>(p_.reg_names.size());
    if (func_ == 0) place_dynamic_shared();
    func().entry = base_;
    emit();
    func().frame = (frame_bytes_ + 15) / 16 * 16;
  }

 private:
  // Runs `f`; in census mode a refusal of statement `s` is recorded, not thrown.
  template <class F>
  void guarded(const Statement& s, const std::string& what, F&& f) {
    if (refusals_ == nullptr) return f();
    try {
      f();
    } catch (const UsageError& e) {
      refusals_->push_back(Refusal{s.pos.line, what, e.what()});
    }
  }

  [[noreturn]] void fail(const Pos& at, const std::string& what) const {
    throw UsageError(fmt::format("{}:{}:{}: {}", m_.path, at.line, at.column, what));
  }

  void declare_var(const Statement& s) {
    std::uint32_t elem = 1;
    if (auto t = parse_type(s.type.empty() ? "b8" : s.type.substr(1))) elem = t->bytes;
    if (s.space == ".global" || s.space == ".const") return p_.symbols.push_back(global_variable(s, elem, m_.path));
    if (s.space != ".shared")
      fail(s.pos, fmt::format("{} variable {}: .local variables are not interpreted yet (PTX "
                              "front end, models/ptx/README.md)",
                              s.space, s.name));
    std::uint32_t align = static_cast<std::uint32_t>(std::max(s.align, 8));
    std::uint64_t at = (std::uint64_t{p_.shared_bytes} + align - 1) / align * align;
    if (at == 0) at = std::max<std::uint64_t>(128, align);  // address 0 unused: a null pointer is an error
    std::uint64_t bytes = static_cast<std::uint64_t>(s.bytes) * elem;  // s.bytes <= 2^20 (parse)
    if (bytes == 0) {  // extern (dynamic) shared memory: placed after the static variables
      dynamic_.push_back(static_cast<int>(p_.symbols.size()));
      dynamic_align_ = std::max(dynamic_align_, align);
      p_.symbols.push_back(Symbol{s.name, display_name(s.name), Space::shared, 0, 0, {}, s.pos.line, {}});
      return;
    }
    if (at + bytes > kMaxShared)
      fail(s.pos, fmt::format("shared variable {} ends at byte {}: heddle models at most {} bytes "
                              "of shared memory per CTA",
                              s.name, at + bytes, kMaxShared));
    p_.symbols.push_back(Symbol{s.name, display_name(s.name), Space::shared,
                                static_cast<std::uint32_t>(at), static_cast<std::uint32_t>(bytes), {},
                                s.pos.line, {}});
    p_.shared_bytes = static_cast<std::uint32_t>(at + bytes);
  }

  // Every `extern .shared x[]` names the dynamic shared memory the launch
  // sizes (CUDA's third <<<>>> argument, --smem): one region after the
  // static variables, at the largest alignment any of them asks and at
  // least 1024 bytes: CUDA code (CUTLASS) takes the dynamic shared memory as
  // aligned to the 1024-byte period of the 128-byte TMA/wgmma swizzle.
  void place_dynamic_shared() {
    if (dynamic_.empty()) return;
    const std::uint64_t align = std::max<std::uint64_t>(dynamic_align_, 1024);
    std::uint64_t at = (std::uint64_t{p_.shared_bytes} + align - 1) / align * align;
    if (at == 0) at = align;
    if (at + dynamic_shared_ > kMaxShared)
      fail(f_.pos, fmt::format("kernel {}: {} bytes of dynamic shared memory from byte {}: heddle "
                               "models at most {} bytes of shared memory per CTA",
                               f_.name, dynamic_shared_, at, kMaxShared));
    for (int i : dynamic_) {
      p_.symbols[static_cast<std::size_t>(i)].offset = static_cast<std::uint32_t>(at);
      p_.symbols[static_cast<std::size_t>(i)].bytes = dynamic_shared_;
    }
    p_.shared_bytes = static_cast<std::uint32_t>(at + dynamic_shared_);
    p_.dynamic_shared_bytes = dynamic_shared_;  // %dynamic_smem_size
  }


  // call{.uni} (rets), f, (args) (PTX ISA 9.7.8.7): args = {rets, args},
  // each a vector of frame variables, registers or immediates.
  void decode_call(const Statement& s, int scope, Instr& in) {
    const auto& ops = s.operands;
    std::size_t i = 0;
    const Operand* lists[2] = {nullptr, nullptr};
    if (i < ops.size() && ops[i].kind == Operand::Kind::list) lists[0] = &ops[i++];
    if (i >= ops.size() || ops[i].kind != Operand::Kind::name)
      fail(s.pos, "call: expected `call (results), function, (arguments);` (indirect calls are not interpreted)");
    const std::string& name = ops[i++].name;
    if (i < ops.size() && ops[i].kind == Operand::Kind::list) lists[1] = &ops[i++];
    if (i != ops.size()) fail(s.pos, "call: expected `call (results), function, (arguments);`");
    try {
      in.callee = callee_index(p_, m_, name);
    } catch (const std::invalid_argument& e) {
      fail(s.pos, e.what());
    }
    const Function* f = find_function(m_, name);
    const std::size_t want[2] = {f->rets.size(), f->params.size()};
    for (int k = 0; k < 2; ++k) {
      Arg list;
      list.kind = Arg::Kind::vector;
      if (lists[k] != nullptr)
        for (const Operand& o : lists[k]->elems) list.elems.push_back(arg(o, scope, s.pos, false));
      if (list.elems.size() != want[k])
        fail(s.pos, fmt::format("call of {} with {} {}: it takes {}", name, list.elems.size(),
                                k == 0 ? "results" : "arguments", want[k]));
      in.args.push_back(std::move(list));
    }
  }


  // The operands the interpreter reads must be there, vectors as wide as .v2/.v4 say.
  void check_operands(const Instr& in, const Pos& at) const {
    if (std::size_t need = operand_count(in); in.args.size() < need)
      fail(at, fmt::format("`{}` takes {} operands, {} given", in.opcode, need, in.args.size()));
    if (std::string why = wgmma_problem(in); !why.empty()) fail(at, fmt::format("`{}`: {}", in.opcode, why));
    if (std::string why = warp_op_problem(in); !why.empty()) fail(at, fmt::format("`{}`: {}", in.opcode, why));
    if (std::string why = unsupported_form(in); !why.empty())
      fail(at, fmt::format("`{}`: {} (models/ptx/README.md)", in.opcode, why));
    if ((in.op == Op::ld || in.op == Op::st) && in.space == Space::param)
      if (std::string why = param_problem(in, p_); !why.empty()) fail(at, why);
    if ((in.op == Op::ld || in.op == Op::st) && in.vec > 1) {
      const Arg& data = in.args[in.op == Op::st ? 1 : 0];
      if (data.kind != Arg::Kind::vector || data.elems.size() != static_cast<std::size_t>(in.vec))
        fail(at, fmt::format("`{}` moves a vector of {} registers: write {{%r1, ...}}", in.opcode, in.vec));
    }
  }

  Func& func() { return p_.funcs[static_cast<std::size_t>(func_)]; }

  // A variable in the function's frame (calls.cpp): `.local` variables and
  // `.param` ones (a .func's parameters, a call's arguments), per lane.
  int frame_var(const std::string& name, std::uint64_t bytes, int align, int line, int scope) {
    auto a = static_cast<std::uint64_t>(std::max(align, 1));
    std::uint64_t at = (frame_bytes_ + a - 1) / a * a;
    if (at + bytes > kMaxFrame)
      fail(f_.pos, fmt::format("function {} has more than {} bytes of local and parameter variables",
                               f_.name, kMaxFrame));
    frame_bytes_ = at + bytes;
    Symbol s{name, display_name(name), Space::local, static_cast<std::uint32_t>(at),
             static_cast<std::uint32_t>(bytes), {}, line, {}};
    s.frame = true;
    scopes_[static_cast<std::size_t>(scope)].vars[name] = static_cast<int>(p_.symbols.size());
    p_.symbols.push_back(std::move(s));
    return static_cast<int>(p_.symbols.size()) - 1;
  }

  int frame_param(const ParamDecl& d) {
    std::uint32_t elem = 8;
    if (auto t = parse_type(d.type.empty() ? "" : d.type.substr(1))) elem = t->bytes;
    std::uint64_t bytes = d.count > 0 ? static_cast<std::uint64_t>(d.count) * elem : elem;
    return frame_var(d.name, bytes, std::max<int>(d.align, static_cast<int>(elem)), d.pos.line, 0);
  }

  // Pass 1: scopes, registers, labels and instruction indices.
  void collect() {
    std::vector<int> stack;
    int index = base_;
    for (const Statement& s : f_.body) {
      int cur = stack.empty() ? 0 : stack.back();
      switch (s.kind) {
        case Statement::Kind::block_begin:
          if (stack.empty()) {
            stack.push_back(0);
          } else {
            scopes_.push_back(BlockScope{cur, {}, {}, {}});
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
        case Statement::Kind::var_decl:
          if (s.space == ".local" || s.space == ".param") {
            std::uint32_t elem = 1;
            if (auto t = parse_type(s.type.empty() ? "b8" : s.type.substr(1))) elem = t->bytes;
            frame_var(s.name, static_cast<std::uint64_t>(std::max<std::int64_t>(s.bytes, 1)) * elem,
                      std::max<int>(s.align, static_cast<int>(elem)), s.pos.line, cur);
          } else {
            guarded(s, s.space + " variable", [&] { declare_var(s); });
          }
          break;
        case Statement::Kind::label:
          if (!scopes_[cur].labels.emplace(s.name, index).second)
            fail(s.pos, fmt::format("label {} is defined twice in one scope", s.name));
          break;
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
    if (int r = lookup(scope, [](const BlockScope& s) -> const auto& { return s.regs; }); r >= 0) {
      a.kind = Arg::Kind::reg;
      a.reg = r;
      return a;
    }
    if (label_ok) {
      if (int l = lookup(scope, [](const BlockScope& s) -> const auto& { return s.labels; }); l >= 0) {
        a.kind = Arg::Kind::label;
        a.imm = l;
        return a;
      }
    }
    if (int v = lookup(scope, [](const BlockScope& s) -> const auto& { return s.vars; }); v >= 0) {
      a.kind = Arg::Kind::symbol;
      a.symbol = v;
      return a;
    }
    for (std::size_t i = 0; i < p_.symbols.size(); ++i)
      if (!p_.symbols[i].frame && p_.symbols[i].name == n) {
        a.kind = Arg::Kind::symbol;
        a.symbol = static_cast<int>(i);
        if (p_.symbols[i].space == Space::shared && p_.symbols[i].bytes == 0 && !launched_)
          fail(at, fmt::format("{} is dynamic shared memory (extern .shared, line {}): give its "
                               "size in bytes with --smem BYTES",
                               n, p_.symbols[i].line));
        return a;
      }
    static const std::map<std::string, Special> specials = {
        {"%tid", Special::tid},       {"%ntid", Special::ntid},     {"%ctaid", Special::ctaid},
        {"%nctaid", Special::nctaid}, {"%laneid", Special::laneid}, {"%warpid", Special::warpid},
        {"%nwarpid", Special::nwarpid}, {"%lanemask_lt", Special::lanemask_lt},
        {"%lanemask_le", Special::lanemask_le}, {"%lanemask_eq", Special::lanemask_eq},
        {"%lanemask_ge", Special::lanemask_ge}, {"%lanemask_gt", Special::lanemask_gt},
        {"%clock", Special::clock}, {"%clock64", Special::clock64},
        {"%globaltimer", Special::globaltimer}, {"%smid", Special::smid}, {"%nsmid", Special::nsmid},
        {"%gridid", Special::gridid}, {"%dynamic_smem_size", Special::dynamic_smem_size},
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
      case Operand::Kind::list: fail(at, "a parenthesized list is an operand of call only");
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
  std::source_location location(int line) { return report_location(p_, m_, loc_, line); }

  // Decodes body statement `i`, instruction `s`, onto the program.
  void instruction(const Statement& s, std::size_t i) {
    Instr in;
    if (!decode_opcode(s.opcode, in))
      fail(s.pos, fmt::format("unsupported PTX instruction `{}` in kernel {} (see "
                              "models/ptx/README.md for what the PTX front end interprets)",
                              s.opcode, f_.name));
    in.line = s.pos.line;
    in.loc = location(s.pos.line);
    if (in.op == Op::exit && func_ != 0 && s.opcode.rfind("ret", 0) == 0) in.op = Op::ret;
    if (!s.guard.empty()) {
      Arg g = name_arg(s.guard, scope_of_[i], s.pos, false);
      if (g.kind != Arg::Kind::reg) fail(s.pos, "a guard must be a predicate register");
      in.guard = g.reg;
      in.guard_negated = s.guard_negated;
    }
    if (in.op == Op::call) {
      decode_call(s, scope_of_[i], in);
    } else {
      for (const Operand& o : s.operands) in.args.push_back(arg(o, scope_of_[i], s.pos, in.op == Op::bra));
      check_operands(in, s.pos);
    }
    if (in.op == Op::bra) {
      if (in.args.size() != 1 || in.args[0].kind != Arg::Kind::label)
        fail(s.pos, "bra needs one label operand");
      in.target = static_cast<int>(in.args[0].imm);
    }
    p_.code.push_back(std::move(in));
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
      if (s.kind == Statement::Kind::instruction) guarded(s, s.opcode, [&] { instruction(s, i); });
    }
    Instr end;  // falling off the end of the body ends the thread (or returns)
    end.op = func_ == 0 ? Op::exit : Op::ret;
    end.opcode = "ret";
    end.line = f_.pos.line;
    end.loc = location(f_.pos.line);
    p_.code.push_back(std::move(end));
  }

  const Module& m_;
  const Function& f_;
  Program& p_;
  std::vector<BlockScope> scopes_;
  std::vector<int> scope_of_;  // per body statement
  std::vector<SourceLoc> loc_;
  std::string key_;
  std::uint32_t dynamic_shared_;   // bytes of dynamic shared memory the launch gives
  int func_;                       // this function's index in Program::funcs
  int base_;                       // its first instruction's index
  std::uint64_t frame_bytes_ = 0;  // its frame so far
  std::vector<int> dynamic_;       // the extern .shared symbols
  std::uint32_t dynamic_align_ = 16;
  std::vector<Refusal>* refusals_;  // census mode: refusals recorded here
  bool launched_ = false;           // dynamic_shared_ is a real launch's (0 is a size)
};

}  // namespace

bool Instr::has(const char* mod) const {
  return std::find(mods.begin(), mods.end(), mod) != mods.end();
}

Program decode(const Module& module, const std::string& kernel, std::uint32_t dynamic_shared,
               std::vector<Refusal>* refusals, bool launched) {
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
    p.funcs.push_back(Func{kernel, Func::Builtin::none, 0, 0, {}, {}, 0, 0});
    Decoder(module, f, p, dynamic_shared, 0, refusals, launched).run();
    for (std::size_t i = 1; i < p.funcs.size(); ++i) {  // the functions it calls, as met
      if (p.funcs[i].builtin != Func::Builtin::none) continue;
      const Function* callee = find_function(module, p.funcs[i].name);
      Decoder(module, *callee, p, dynamic_shared, static_cast<int>(i), refusals, launched).run();
    }
    mark_spin_loops(p);
    return p;
  }
  throw UsageError(fmt::format("{} has no kernel entry {}; its entries: {}", module.path, kernel,
                               entries.empty() ? "none" : fmt::format("{}", fmt::join(entries, ", "))));
}

}  // namespace heddle::ptx
