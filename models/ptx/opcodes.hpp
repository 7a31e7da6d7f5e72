// Opcode decoding: which interpreter operation a PTX opcode is, its types,
// state space and vector width (PTX ISA 9.7, instruction by instruction).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "models/ptx/program.hpp"

namespace heddle::ptx {

/// A type modifier (".u32", ".f32", ".pred"); nullopt when `mod` is not one.
std::optional<Type> parse_type(const std::string& mod);
/// Whether `m` is written as a type (".tf32", ".e2m1x2", ".b128"), parsed or not.
bool looks_like_type(const std::string& m);
/// Whether half.cpp interprets the narrow-float instruction `in` (op and types decoded).
bool narrow_supported(const Instr& in);
/// Fills op, mods, types, space and vector width of `in` from `opcode`;
/// returns false when the interpreter does not support the instruction.
bool decode_opcode(const std::string& opcode, Instr& in);
/// Sets `in.sem` and `in.scope` from its modifiers (PTX ISA 8.4-8.5, 9.7.9.8-9,
/// 9.7.13.4); false for a form the memory model does not cover (memory_model.cpp).
bool decode_memory_order(Instr& in);
/// Marks each strong load that heads a pure spin loop (memory_model.cpp).
void mark_spin_loops(Program& p);
/// The initial contents of variable `s`: `count` elements of `elem` bytes
/// from its initializer, zero where it gives none (variables.cpp);
/// UsageError at its line for a value that is not a number, or too many.
std::vector<std::uint8_t> initial_bytes(const Statement& s, std::size_t elem, std::size_t count,
                                        const std::string& path);
/// The .func `name` of `m` (its definition where it has one), or nullptr (functions.cpp).
const Function* find_function(const Module& m, const std::string& name);
/// The index in `p.funcs` of the function a call names, added when new
/// (vprintf/__assertfail declared without a body are builtins);
/// std::invalid_argument saying why when it cannot be called.
int callee_index(Program& p, const Module& m, const std::string& name);
/// Why ld/st.param `in` cannot run: a write of a kernel parameter, bytes
/// outside a parameter (kernel parameters: their first 8); "" when it can.
std::string param_problem(const Instr& in, const Program& p);
/// A demangled name for a function-local static (_ZZ...E2sD -> sD).
std::string display_name(const std::string& n);
/// The report location of an instruction at PTX `line` under `.loc` chain
/// `locs` (innermost first): "kernel.cu:LINE via kernel.ptx", stored in `p`.
std::source_location report_location(Program& p, const Module& m, const std::vector<SourceLoc>& locs,
                                     int line);
/// The symbol of module variable `s` (.global/.const) with `elem`-byte
/// elements and its initial contents; UsageError for an .extern one.
Symbol global_variable(const Statement& s, std::uint32_t elem, const std::string& path);
/// What a user should know about `m` before a run: a .target other than
/// sm_90a, a `kernel` without .loc lines (nvcc without -lineinfo).
std::vector<std::string> module_warnings(const Module& m, const std::string& kernel);
/// The fewest operands the interpreter reads for decoded `in` (its op and
/// modifiers); the decoder rejects an instruction written with fewer.
std::size_t operand_count(const Instr& in);
/// Why the interpreter cannot run decoded `in` (a form, a state space or an
/// operand it does not interpret), or "" when it can (refuse.cpp).
std::string unsupported_form(const Instr& in);
/// Why the interpreter cannot run the ldmatrix/stmatrix/setmaxnreg/vote
/// form `in` (operands decoded), or "" when it can (warp_ops.cpp).
std::string warp_op_problem(const Instr& in);
/// Why the interpreter cannot run the wgmma form `in` (operands decoded),
/// or "" when it can (wgmma.cpp).
std::string wgmma_problem(const Instr& in);

}  // namespace heddle::ptx
