// A PTX kernel decoded for the interpreter: registers numbered, labels
// resolved to instruction indices, opcodes decoded, each instruction with
// its PTX line and its CUDA source line (from .loc/.file, nvcc -lineinfo).
#pragma once
#include <array>
#include <cstdint>
#include <deque>
#include <source_location>
#include <string>
#include <vector>

#include "checker/engine/foreign_location.hpp"
#include "models/ptx/syntax.hpp"

namespace heddle::ptx {

/// The operations the interpreter knows (PTX ISA 9.7); `Instr::mods` refines them.
enum class Op {
  mov, add, sub, mul, mad, div, rem, min, max, abs, neg, and_, or_, xor_, not_, shl, shr,
  setp, selp, cvt, cvta, ld, st, bra, exit, bar_sync, bar_arrive, bar_warp_sync, fence_noop,
  fence_proxy_async, fence_tensormap_acquire, fence_tensormap_release, mbar_init, mbar_arrive, mbar_expect_tx,
  mbar_try_wait, mbar_test_wait, tma_load, tma_store, bulk_commit, bulk_wait, tensormap_replace,
  tensormap_cp_fenceproxy, elect, shfl, atom, red, cp_async, cp_async_commit, cp_async_wait,
  wgmma_fence, wgmma_mma, wgmma_commit, wgmma_wait,
  // clusters and the non-tensor bulk copies (cluster.cpp, bulk_copy.cpp)
  mapa, getctarank, bar_cluster_arrive, bar_cluster_wait, fence_mbarrier_init, bulk_copy, bulk_reduce, prefetch
};

/// A scalar type: width in bytes, kind (PTX ISA 5.2).
struct Type {
  enum class Kind { none, u, s, b, f, pred };
  Kind kind = Kind::none;
  int bytes = 0;
  bool is_signed() const noexcept { return kind == Kind::s; }
  bool is_float() const noexcept { return kind == Kind::f; }
};

/// PTX state spaces (PTX ISA 5.1).
enum class Space { generic, global, shared, param, local, constant };

/// Special registers (PTX ISA 10).
enum class Special {
  tid, ntid, ctaid, nctaid, laneid, warpid, nwarpid, lanemask_lt,
  cluster_ctarank, cluster_nctarank, clusterid, nclusterid, cluster_ctaid, cluster_nctaid,
  is_explicit_cluster
};

/// A decoded operand.
struct Arg {
  enum class Kind { reg, imm, symbol, special, sink, vector, pair, label };
  Kind kind = Kind::imm;
  int reg = -1;                 // reg: register index
  std::int64_t imm = 0;         // imm: value (bits for floats); address offset
  int symbol = -1;              // symbol: index into Program::symbols
  Special special = Special::tid;
  int component = 0;            // special: x=0, y=1, z=2
  bool address = false;         // written [ ... ]: the value is an address
  std::vector<Arg> elems;       // vector / pair / tensor coordinates
};

/// A named variable with an address: a .shared array or a kernel parameter.
struct Symbol {
  std::string name;      // as declared
  std::string display;   // for reports (a demangled local name: "sD")
  Space space = Space::shared;
  std::uint32_t offset = 0;   // shared: offset in the CTA's shared window; param: index
  std::uint32_t bytes = 0;
};

/// One decoded instruction.
struct Instr {
  Op op = Op::mov;
  std::string opcode;             // as written, for reports
  std::vector<std::string> mods;  // the opcode's '.'-separated parts after the first
  Type type, type2;               // main type; cvt's source type
  Space space = Space::generic;   // ld/st/atom/cvta state space
  bool cluster = false;           // the space was written .shared::cluster (DSMEM reachable)
  int vec = 1;                    // .v2/.v4
  int guard = -1;                 // predicate register, or -1
  bool guard_negated = false;
  std::vector<Arg> args;
  int target = -1;                // bra: instruction index
  bool wide = false;              // .wide (mul, mad): decoded once, the ALU asks per lane
  bool to = false;                // cvta.to
  std::string cmp;                // setp's comparison
  int line = 0;                   // PTX line
  // The report position: its file reads "kernel.cu:LINE via kernel.ptx", its
  // line is the PTX line, so reports print "kernel.cu:32 via kernel.ptx:151"
  // (built with checker/engine/foreign_location.hpp).
  std::source_location loc;
  bool has(const char* mod) const;
};

/// A decoded kernel entry.
struct Program {
  std::string kernel;
  std::string ptx_path;
  std::vector<Instr> code;
  std::vector<std::string> reg_names;  // by register index
  std::vector<Symbol> symbols;
  std::vector<int> params;             // symbol index of each kernel parameter, in order
  std::uint32_t shared_bytes = 0;      // size of one CTA's shared window
  std::array<int, 3> cluster_dims{0, 0, 0};  // .reqnctapercluster (0: not given)
  bool explicit_cluster = false;       // .explicitcluster
  std::deque<std::string> texts;       // storage of the locations' strings
  std::deque<LocRecord> locs;          // storage of the locations (foreign_location.hpp)
};

/// Decodes entry `kernel` of `module`; UsageError naming the instruction
/// and its PTX line for anything the interpreter does not support.
Program decode(const Module& module, const std::string& kernel);
/// Base of a CTA's shared window in generic addresses (cvta.shared adds it).
inline constexpr std::uint64_t kSharedWindow = 0x7e0000000000ull;
/// The shared::cluster window (PTX ISA 5.1.4): CTA rank r's shared memory
/// at offset o is `o + (r + 1) * kRankStride` (mapa gives it); an address
/// below kRankStride is the executing CTA's own (the shared::cta window).
inline constexpr std::uint64_t kRankStride = 1ull << 24;

}  // namespace heddle::ptx
