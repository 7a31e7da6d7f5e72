// Opcode decoding: which interpreter operation a PTX opcode is, its types,
// state space and vector width (PTX ISA 9.7, instruction by instruction).
#pragma once
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
/// The fewest operands the interpreter reads for decoded `in` (its op and
/// modifiers); the decoder rejects an instruction written with fewer.
std::size_t operand_count(const Instr& in);
/// Why the interpreter cannot run the ldmatrix/stmatrix/setmaxnreg/vote
/// form `in` (operands decoded), or "" when it can (warp_ops.cpp).
std::string warp_op_problem(const Instr& in);
/// Why the interpreter cannot run the wgmma form `in` (operands decoded),
/// or "" when it can (wgmma.cpp).
std::string wgmma_problem(const Instr& in);

}  // namespace heddle::ptx
