// Walks the PEGTL parse tree of grammar.hpp into the syntax tree of syntax.hpp.
#include <fmt/format.h>

#include <fstream>
#include <sstream>
#include <tao/pegtl/contrib/parse_tree.hpp>

#include "checker/engine/errors.hpp"
#include "models/ptx/grammar.hpp"
#include "models/ptx/syntax.hpp"

namespace heddle::ptx {
namespace {
namespace pg = tao::pegtl;
namespace g = grammar;
using Node = pg::parse_tree::node;

Pos pos_of(const Node& n) {
  auto p = n.begin();
  return Pos{static_cast<int>(p.line), static_cast<int>(p.column)};
}

// A number the grammar accepts but 64 bits do not hold (parse() adds the file).
struct BadNumber : std::runtime_error {
  using std::runtime_error::runtime_error;
};

std::uint64_t to_bits(const std::string& s, int base) {
  try {
    return std::stoull(s, nullptr, base);
  } catch (const std::out_of_range&) {
    throw BadNumber(fmt::format("the integer {} does not fit in 64 bits", s));
  }
}

// Two's complement, as PTX reads integers: -x wraps, and so do offsets.
std::int64_t to_int(std::string s) {
  bool neg = !s.empty() && s[0] == '-';
  if (neg) s.erase(0, 1);
  if (!s.empty() && s.back() == 'U') s.pop_back();
  std::uint64_t v = to_bits(s, 0);
  return static_cast<std::int64_t>(neg ? 0 - v : v);
}

// A count or size written in a declaration: 0 to 2^20 (more is no real kernel).
int to_count(const std::string& s) {
  std::int64_t v = to_int(s);
  if (v < 0 || v > (1 << 20)) throw BadNumber(fmt::format("{} is not a count from 0 to 1048576", s));
  return static_cast<int>(v);
}

const Node* child(const Node& n, auto is) {
  for (const auto& c : n.children)
    if (is(*c)) return c.get();
  return nullptr;
}

template <class Rule>
const Node* child_of(const Node& n) {
  return child(n, [](const Node& c) { return c.is_type<Rule>(); });
}

Operand operand(const Node& n) {
  Operand o;
  if (n.is_type<g::name>()) {
    o.name = n.string();
  } else if (n.is_type<g::integer>()) {
    o.kind = Operand::Kind::integer;
    o.value = to_int(n.string());
  } else if (n.is_type<g::float_bits>()) {
    o.kind = Operand::Kind::bits;
    o.value = static_cast<std::int64_t>(to_bits(n.string().substr(2), 16));
  } else if (n.is_type<g::sink>()) {
    o.kind = Operand::Kind::sink;
  } else if (n.is_type<g::pair>()) {
    o.kind = Operand::Kind::pair;
    for (const auto& c : n.children) o.elems.push_back(operand(*c));
  } else if (n.is_type<g::paren_list>()) {
    o.kind = Operand::Kind::list;
    for (const auto& c : n.children) o.elems.push_back(operand(*c));
  } else if (n.is_type<g::vector>()) {
    o.kind = Operand::Kind::vector;
    for (const auto& c : n.children) o.elems.push_back(operand(*c));
  } else if (n.is_type<g::address>()) {
    o.kind = Operand::Kind::address;
    for (const auto& c : n.children) {
      if (c->is_type<g::name>()) o.name = c->string();
      if (c->is_type<g::integer>()) o.value = to_int(c->string());  // an absolute address
      if (c->is_type<g::offset>()) {
        std::string t = c->string();
        std::string digits;
        bool negative = false;
        for (char ch : t) {
          if (ch == '-') negative = !negative;
          else if (ch != ' ' && ch != '\t' && ch != '+') digits += ch;
        }
        auto v = static_cast<std::uint64_t>(to_int(digits));
        o.value = static_cast<std::int64_t>(static_cast<std::uint64_t>(o.value) + (negative ? 0 - v : v));
      }
      if (c->is_type<g::vector>()) {
        o.has_elems = true;
        o.elems = operand(*c).elems;
      }
    }
  } else {
    throw std::logic_error("[heddle bug] unexpected operand node " + std::string(n.type));
  }
  return o;
}

void instruction(const Node& n, std::vector<Statement>& out) {
  Statement s;
  s.pos = pos_of(n);
  for (const auto& c : n.children) {
    if (c->is_type<g::guard>()) {
      s.guard_negated = child_of<g::guard_not>(*c) != nullptr;
      s.guard = child_of<g::name>(*c)->string();
    } else if (c->is_type<g::opcode>()) {
      s.opcode = c->string();
    } else if (c->is_type<g::operands>()) {
      for (const auto& o : c->children) s.operands.push_back(operand(*o));
    }
  }
  out.push_back(std::move(s));
}

void reg_decl(const Node& n, std::vector<Statement>& out) {
  std::string type;
  for (const auto& c : n.children) {
    if (c->is_type<g::type>()) type += c->string();
    if (!c->is_type<g::reg_item>()) continue;
    Statement s;
    s.kind = Statement::Kind::reg_decl;
    s.pos = pos_of(*c);
    s.type = type;
    s.name = child_of<g::name>(*c)->string();
    if (const Node* k = child_of<g::count>(*c)) s.count = to_count(k->children[0]->string());
    out.push_back(std::move(s));
  }
}

Statement var_decl(const Node& n) {
  Statement s;
  s.kind = Statement::Kind::var_decl;
  s.pos = pos_of(n);
  for (const auto& c : n.children) {
    if (c->is_type<g::space>()) s.space = c->string();
    if (c->is_type<g::type>()) s.type = c->string();
    if (c->is_type<g::align>()) s.align = to_count(c->children[0]->string());
    if (c->is_type<g::name>()) s.name = c->string();
    if (c->is_type<g::initializer>()) s.init = c->string();
    if (c->is_type<g::extern_kw>()) s.is_extern = true;
    if (c->is_type<g::array>())
      s.bytes = c->children.empty() ? 0 : to_count(c->children[0]->string());
  }
  if (!n.children.empty() && s.bytes == 0 && !child_of<g::array>(n)) s.bytes = 1;
  return s;
}

SourceLoc triple(const Node& n) {
  return SourceLoc{static_cast<int>(to_int(n.children[0]->string())),
                   static_cast<int>(to_int(n.children[1]->string()))};
}

void body(const Node& n, std::vector<Statement>& out) {
  for (const auto& c : n.children) {
    Statement s;
    s.pos = pos_of(*c);
    if (c->is_type<g::instruction>()) {
      instruction(*c, out);
    } else if (c->is_type<g::label>()) {
      s.kind = Statement::Kind::label;
      s.name = child_of<g::name>(*c)->string();
      out.push_back(std::move(s));
    } else if (c->is_type<g::reg_decl>()) {
      reg_decl(*c, out);
    } else if (c->is_type<g::var_decl>()) {
      out.push_back(var_decl(*c));
    } else if (c->is_type<g::loc>()) {
      s.kind = Statement::Kind::loc;
      for (const auto& t : c->children)
        if (t->is_type<g::loc_triple>()) s.locs.push_back(triple(*t));
      out.push_back(std::move(s));
    } else if (c->is_type<g::block_open>()) {
      s.kind = Statement::Kind::block_begin;
      out.push_back(std::move(s));
    } else if (c->is_type<g::block_close>()) {
      s.kind = Statement::Kind::block_end;
      out.push_back(std::move(s));
    }
  }
}

ParamDecl param(const Node& n) {
  ParamDecl p;
  p.pos = pos_of(n);
  for (const auto& c : n.children) {
    if (c->is_type<g::type>()) p.type = c->string();
    if (c->is_type<g::align>()) p.align = to_count(c->children[0]->string());
    if (c->is_type<g::name>()) p.name = c->string();
    if (c->is_type<g::array>() && !c->children.empty()) p.count = to_count(c->children[0]->string());
  }
  return p;
}

Function function(const Node& n) {
  // The selector flattens the body's blocks into block_open/close markers,
  // so the body's statements are this node's children after the name.
  Function f;
  f.pos = pos_of(n);
  bool after_name = false;
  for (const auto& c : n.children) {
    if (c->is_type<g::entry_kind>()) f.entry = c->string() == ".entry";
    if (c->is_type<g::function_name>()) f.name = c->string(), after_name = true;
    if (c->is_type<g::param>()) (after_name ? f.params : f.rets).push_back(param(*c));
    if (c->is_type<g::explicitcluster>()) f.explicit_cluster = true;
    if (c->is_type<g::reqnctapercluster>())
      for (const auto& d : c->children) f.cluster_dims.push_back(to_count(d->string()));
  }
  body(n, f.body);
  return f;
}

Module module(const Node& root, const std::string& path) {
  Module m;
  m.path = path;
  for (const auto& c : root.children) {
    if (c->is_type<g::target>()) m.target = c->string();
    if (c->is_type<g::function>()) m.functions.push_back(function(*c));
    if (c->is_type<g::var_decl>()) m.globals.push_back(var_decl(*c));
    if (c->is_type<g::file_directive>()) {
      std::string quoted = child_of<g::string_lit>(*c)->string();
      m.files[static_cast<int>(to_int(c->children[0]->string()))] =
          quoted.substr(1, quoted.size() - 2);
    }
  }
  return m;
}

// The grammar nests blocks and vector operands by recursion: a file of
// thousands of '{' overflowed the stack. nvcc nests a few levels (inline asm).
constexpr int kMaxNesting = 64;

void check_nesting(const std::string& text, const std::string& path) {
  int depth = 0, line = 1, column = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    ++column;
    if (c == '\n') {
      ++line;
      column = 0;
    } else if (c == '/' && i + 1 < text.size() && text[i + 1] == '/') {
      while (i + 1 < text.size() && text[i + 1] != '\n') ++i;  // a comment to the line's end
    } else if (c == '{' && ++depth > kMaxNesting) {
      throw UsageError(fmt::format("{}:{}:{}: braces nested more than {} deep", path, line, column,
                                   kMaxNesting));
    } else if (c == '}' && depth > 0) {
      --depth;
    }
  }
}

}  // namespace

Module parse(const std::string& text, const std::string& path) {
  check_nesting(text, path);
  pg::memory_input in(text, path);
  try {
    auto root = pg::parse_tree::parse<g::module, g::selector>(in);
    if (!root) throw UsageError(fmt::format("{}: not a PTX module", path));
    return module(*root, path);
  } catch (const BadNumber& e) {
    throw UsageError(fmt::format("{}: {}", path, e.what()));
  } catch (const pg::parse_error& e) {
    const auto& p = e.positions().front();
    std::string line = std::string(in.line_at(p));
    throw UsageError(fmt::format("{}:{}:{}: PTX syntax error: cannot read a statement here:\n  {}\n"
                                 "  (heddle reads the PTX nvcc emits; check the file is PTX)",
                                 path, p.line, p.column, line));
  }
}

Module parse_file(const std::string& path) {
  std::ifstream f(path);
  if (!f) throw UsageError(fmt::format("cannot read PTX file {}", path));
  std::stringstream ss;
  ss << f.rdbuf();
  return parse(ss.str(), path);
}

}  // namespace heddle::ptx
