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
  fence_order, mbar_try_wait, mbar_test_wait, tma_load, tma_store, bulk_commit, bulk_wait, tensormap_replace,
  tensormap_cp_fenceproxy, elect, shfl, atom, red, cp_async, cp_async_commit, cp_async_wait,
  wgmma_fence, wgmma_mma, wgmma_commit, wgmma_wait, call, ret,
  // bit manipulation (bits.cpp) and the warp-wide operations (warp_ops.cpp)
  bfi, bfe, prmt, popc, clz, brev, lop3, shf, bfind, vote, activemask, nanosleep, trap, setmaxnreg,
  ldmatrix, stmatrix, hint,  // hint: no effect on what heddle models (prefetch, griddepcontrol)
  // clusters and the non-tensor bulk copies (cluster.cpp, bulk_copy.cpp)
  mapa, getctarank, bar_cluster_arrive, bar_cluster_wait, fence_mbarrier_init, bulk_copy, bulk_reduce, prefetch
};

/// A scalar type: width in bytes, kind (PTX ISA 5.2). The narrow floats
/// (.f16, .bf16, .e4m3, .e5m2, PTX ISA 5.2.5) and their packed forms
/// (.f16x2, .bf16x2, .e4m3x2, .e5m2x2: `pack` 2) are interpreted by half.cpp;
/// `bytes` is the whole register's width (.f16x2: 4).
struct Type {
  enum class Kind { none, u, s, b, f, pred, bf, e4m3, e5m2 };
  Kind kind = Kind::none;
  int bytes = 0;
  int pack = 1;  // elements in the register (x2 forms: 2)
  bool is_signed() const noexcept { return kind == Kind::s; }
  bool is_float() const noexcept { return kind == Kind::f; }
  /// A float narrower than 32 bits, or a packed pair: half.cpp computes it.
  bool is_narrow_float() const noexcept {
    return kind == Kind::bf || kind == Kind::e4m3 || kind == Kind::e5m2 ||
           (kind == Kind::f && (bytes < 4 || pack > 1));
  }
};

/// The types the interpreter reads operands as where the instruction names
/// none of its own (addresses, counts, predicates), shared by its files.
inline constexpr Type kU32{Type::Kind::u, 4};
inline constexpr Type kU64{Type::Kind::u, 8};
inline constexpr Type kPred{Type::Kind::pred, 1};

/// PTX state spaces (PTX ISA 5.1).
enum class Space { generic, global, shared, param, local, constant };

/// Memory-consistency semantics of ld/st/atom/red/fence (PTX ISA 8.4,
/// 9.7.9.8-9): plain (weak) accesses, or morally strong ones (memory_model.cpp).
enum class Sem { weak, relaxed, acquire, release, acq_rel };
/// The scope of a strong operation (PTX ISA 8.5): the threads it is strong with.
enum class Scope { cta, cluster, gpu, sys };

/// Special registers (PTX ISA 10).
enum class Special {
  tid, ntid, ctaid, nctaid, laneid, warpid, nwarpid, lanemask_lt, lanemask_le, lanemask_eq,
  lanemask_ge, lanemask_gt, clock, clock64, globaltimer, smid, nsmid, gridid, dynamic_smem_size,
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
  Type type;                  // param: the declared type (.u32, .b8 for arrays)
  int line = 0;               // where it is declared
  std::vector<std::uint8_t> init;  // global/constant: the initial contents (bytes long)
  bool frame = false;  // a .local variable or a function's .param: `offset` is in the
                       // running function's frame of the lane's local memory (calls.cpp)
};

/// A function the kernel calls (PTX ISA 7.2): its code, or a builtin.
struct Func {
  enum class Builtin { none, vprintf, assertfail };
  std::string name;
  Builtin builtin = Builtin::none;
  int entry = -1;                   // first instruction
  std::uint32_t frame = 0;          // bytes of its frame (its .local and .param variables)
  std::vector<int> params, rets;    // frame symbols of its parameters and return values
  int reg_begin = 0, reg_end = 0;   // its registers: a call saves them, ret restores them
};

/// Modifiers read per lane, as bits of Instr::flags (no string work per lane).
enum Flag : std::uint16_t {
  kHi = 1, kFtz = 2, kSat = 4, kSatfinite = 8, kRelu = 16, kNaN = 32,
  kRoundZero = 64, kRoundDown = 128, kRoundUp = 256,  // .rz/.rzi, .rm/.rmi, .rp/.rpi (else nearest)
  kShflUp = 512, kShflDown = 1024, kShflBfly = 2048, kRoundNearestInt = 4096,  // .rni
  kAnd = 8192, kOr = 16384, kXor = 32768  // setp's BoolOp
};

/// setp's comparison (PTX ISA 9.7.7.1), decoded once from Instr::cmp; the
/// `u` forms are the unordered float ones.
enum class Cmp : std::uint8_t {
  none, eq, ne, lt, le, gt, ge, lo, ls, hi, hs, equ, neu, ltu, leu, gtu, geu, num, nan
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
  bool narrow = false;            // a narrow-float type is involved: half.cpp computes it
  std::uint16_t flags = 0;        // modifiers the hot path asks per lane (Flag), decoded once
  std::string cmp;                // setp's comparison, as written (for reports)
  Cmp compare = Cmp::none;        // the same, for the hot path
  int callee = -1;                // call: index into Program::funcs; args: {rets list, params list}
  Sem sem = Sem::weak;            // ld/st/atom/red/fence: .relaxed/.acquire/.release/.acq_rel
  Scope scope = Scope::gpu;       // their .cta/.cluster/.gpu/.sys (default .gpu)
  int spin_begin = -1;            // a strong ld heading a pure spin loop: the loop's
  int spin_end = -1;              // first and last instruction (memory_model.cpp)
  int line = 0;                   // PTX line
  // The report position: its file reads "kernel.cu:LINE via kernel.ptx", its
  // line is the PTX line, so reports print "kernel.cu:32 via kernel.ptx:151"
  // (built with checker/engine/foreign_location.hpp).
  std::source_location loc;
  bool has(const char* mod) const;
  bool flag(Flag f) const noexcept { return (flags & f) != 0; }
};

/// A decoded kernel entry.
struct Program {
  std::string kernel;
  std::string ptx_path;
  std::vector<Instr> code;
  std::vector<std::string> reg_names;  // by register index
  std::vector<Symbol> symbols;
  std::vector<int> params;             // symbol index of each kernel parameter, in order
  std::vector<Func> funcs;             // funcs[0]: the kernel (its frame), then what it calls
  std::uint32_t shared_bytes = 0;      // size of one CTA's shared window
  std::uint32_t dynamic_shared_bytes = 0;  // of it, the extern (dynamic) array's bytes
  std::array<int, 3> cluster_dims{0, 0, 0};  // .reqnctapercluster (0: not given)
  bool explicit_cluster = false;       // .explicitcluster
  std::deque<std::string> texts;       // storage of the locations' strings
  std::deque<LocRecord> locs;          // storage of the locations (foreign_location.hpp)
};

/// An instruction or declaration the interpreter refuses, with why (census).
struct Refusal {
  int line = 0;
  std::string what;  // the opcode as written, or ".global variable"
  std::string why;   // the UsageError's text
};

/// Decodes entry `kernel` of `module` for a launch with `dynamic_shared`
/// bytes of dynamic shared memory (`extern .shared`); UsageError naming the
/// instruction and its PTX line for anything the interpreter does not support.
/// With `refusals`, each refused instruction or declaration is recorded there
/// instead and decoding goes on (the opcode census, bench/ptx_census.cpp).
/// `launched`: the size comes from a real launch, so 0 bytes is a size (CUDA
/// lets a kernel name an `extern .shared` array it was given none of).
Program decode(const Module& module, const std::string& kernel, std::uint32_t dynamic_shared = 0,
               std::vector<Refusal>* refusals = nullptr, bool launched = false);
/// Base of a CTA's shared window in generic addresses (cvta.shared adds it).
inline constexpr std::uint64_t kSharedWindow = 0x7e0000000000ull;
/// Base of a lane's local memory in generic addresses (cvta.local adds it).
inline constexpr std::uint64_t kLocalWindow = 0x7c0000000000ull;  // below the shared window; globals start at 0x7f0000000000
/// The shared::cluster window (PTX ISA 5.1.4): CTA rank r's shared memory
/// at offset o is `o + (r + 1) * kRankStride` (mapa gives it); an address
/// below kRankStride is the executing CTA's own (the shared::cta window).
inline constexpr std::uint64_t kRankStride = 1ull << 24;

}  // namespace heddle::ptx
