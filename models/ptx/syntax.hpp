// The PTX syntax tree: what the parser (parse.cpp, grammar.hpp) reads from
// nvcc's output, before names are resolved (program.hpp).
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace heddle::ptx {

/// A position in the PTX file (1-based).
struct Pos {
  int line = 0;
  int column = 0;
};

/// One instruction operand as written.
struct Operand {
  enum class Kind { name, integer, bits, address, vector, pair, sink, list };
  Kind kind = Kind::name;
  std::string name;              // name: register, symbol or label; address: its base
  std::int64_t value = 0;        // integer; bits: a 0f/0d float's bit pattern; address: offset
  std::vector<Operand> elems;    // vector elements; pair {d, p}; address: tensor coordinates; list
  bool has_elems = false;        // address: a tensor coordinate vector follows the base
};

/// A source position from a .loc directive: file index, line, column.
struct SourceLoc {
  int file = 0;
  int line = 0;
};

/// One statement of a function body, flattened: blocks become begin/end markers.
struct Statement {
  enum class Kind { instruction, label, reg_decl, var_decl, block_begin, block_end, loc };
  Kind kind = Kind::instruction;
  Pos pos;
  // instruction
  std::string guard;             // predicate register ("" when unguarded)
  bool guard_negated = false;
  std::string opcode;            // "cp.async.bulk.commit_group" (modifiers included)
  std::vector<Operand> operands;
  // label, reg_decl (one entry per declared name, with its count), var_decl
  std::string name;
  std::string type;              // ".b32", ".pred", ".b8"
  int count = 0;                 // reg_decl: %r<65> declares 65 names; 0 declares `name` alone
  std::string space;             // var_decl: ".shared", ".local", ".global"
  std::int64_t bytes = 0;        // var_decl: array size in elements (0: extern, unsized)
  int align = 0;
  std::string init;              // var_decl: the initializer as written ("{1, 2}"), "" without
  bool is_extern = false;        // var_decl: .extern (defined in another module, or dynamic shared)
  // loc: innermost position, then the inlined_at chain outwards
  std::vector<SourceLoc> locs;
};

/// A kernel parameter as declared.
struct ParamDecl {
  std::string name;
  std::string type;   // ".u64", ".b8"
  int align = 0;
  std::int64_t count = 0;  // array elements (.b8 name[128]); 0: scalar
  Pos pos;
};

/// One .entry or .func.
struct Function {
  std::string name;
  bool entry = false;
  Pos pos;
  std::vector<ParamDecl> params;
  std::vector<ParamDecl> rets;   // .func: the return parameters, before the name
  std::vector<Statement> body;   // empty for a declaration without a body
  std::vector<int> cluster_dims;  // .reqnctapercluster X[, Y[, Z]] (empty: not given)
  bool explicit_cluster = false;  // .explicitcluster
};

/// A parsed PTX module.
struct Module {
  std::string path;                        // the file, as given
  std::string target;                      // ".target sm_90a"
  std::map<int, std::string> files;        // .file index -> path
  std::vector<Statement> globals;          // module-level .shared/.global variables
  std::vector<Function> functions;
};

/// Parses PTX text; throws UsageError "FILE:LINE:COL: ..." on a syntax error.
Module parse(const std::string& text, const std::string& path);
/// Reads and parses a PTX file.
Module parse_file(const std::string& path);

}  // namespace heddle::ptx
