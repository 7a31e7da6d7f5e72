// wgmma (PTX ISA 9.7.15, asynchronous warpgroup matrix multiply) on
// models/gpu's async warpgroup MMA: each warp's mma_async is an async agent
// that reads both shared-memory operands in the async proxy, at the places
// their matrix descriptors give, and computes its 16 rows of D some time
// after the issue; wgmma.commit_group/wait_group order its completion. The
// accumulator registers belong to the mma until a wait_group retires it:
// touching one before is undefined in PTX and a model error here.
//
// Interpreted forms: dense .m64nNk16 with .f32 accumulators and .f16 or
// .bf16 operands, .m64nNk8 with .tf32 operands, and .m64nNk32 with fp8
// operands (.e4m3/.e5m2, A and B each either), both from descriptors, K-major (imm-trans 0), any of the
// four layouts (no swizzle, 32/64/128-byte swizzle).
#include "models/gpu/wgmma.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <functional>
#include <optional>
#include <vector>

#include "models/ptx/narrow_float.hpp"
#include "models/ptx/opcodes.hpp"
#include "models/ptx/warp.hpp"

namespace heddle::ptx {
namespace {

struct Shape {
  int n = 0;   // N of m64nNkK
  int k = 16;  // K: 16 for .f16/.bf16, 32 for the fp8 types, 8 for .tf32
  const FloatFormat* a = &kF16;  // operand formats
  const FloatFormat* b = &kF16;
  int element_bytes() const { return 32 / k; }  // a K-major row is 32 bytes either way
};

const FloatFormat* operand_format(const std::string& t, int k) {
  if (k == 8) return t == "tf32" ? &kTF32 : nullptr;
  if (k == 16) return t == "f16" ? &kF16 : t == "bf16" ? &kBF16 : nullptr;
  return t == "e4m3" ? &kE4M3 : t == "e5m2" ? &kE5M2 : nullptr;
}

// .m64nNk16.f32.{f16,bf16} (both operands alike), .m64nNk8.f32.tf32.tf32 and
// .m64nNk32.f32.{e4m3,e5m2}.{e4m3,e5m2}.
std::optional<Shape> shape_of(const Instr& in) {
  const auto& m = in.mods;
  auto at = std::find_if(m.begin(), m.end(), [](const std::string& s) { return s.rfind("m64n", 0) == 0; });
  if (at == m.end() || m.end() - at != 4 || at[1] != "f32") return std::nullopt;
  auto number = [](const std::string& digits) {
    int v = 0;
    for (char c : digits) {
      if (c < '0' || c > '9' || v > 1000) return -1;
      v = v * 10 + (c - '0');
    }
    return digits.empty() ? -1 : v;
  };
  std::size_t kpos = at->find('k', 4);
  if (kpos == std::string::npos) return std::nullopt;
  int n = number(at->substr(4, kpos - 4)), k = number(at->substr(kpos + 1));
  if (n < 8 || n > 256 || n % 8 != 0 || (k != 8 && k != 16 && k != 32)) return std::nullopt;
  const FloatFormat *a = operand_format(at[2], k), *b = operand_format(at[3], k);
  if (a == nullptr || b == nullptr || (k != 32 && a != b)) return std::nullopt;
  return Shape{n, k, a, b};
}

// A K-major operand as its matrix descriptor gives it (PTX ISA 9.7.15,
// matrix descriptor: start, leading and stride byte offsets >> 4 in bits
// 0-13, 16-29 and 32-45, base offset in 49-51, layout in 62-63).
struct Operand {
  std::uint32_t start = 0, lbo = 0, sbo = 0;
  std::uint32_t swizzle = 0;  // bytes of the swizzle row: 0 (none), 32, 64 or 128
};

Operand operand(std::uint64_t desc, const Instr& in) {
  if ((desc >> 49 & 7) != 0)
    throw ModelError("wgmma.mma_async: a descriptor with a non-zero base offset (a swizzle pattern "
                     "not aligned to its repeat) is not interpreted",
                     in.loc);
  static constexpr std::uint32_t kSwizzle[4] = {0, 128, 64, 32};
  return Operand{static_cast<std::uint32_t>(desc & 0x3fff) << 4,
                 static_cast<std::uint32_t>(desc >> 16 & 0x3fff) << 4,
                 static_cast<std::uint32_t>(desc >> 32 & 0x3fff) << 4, kSwizzle[desc >> 62]};
}

// The shared address of byte `b` (0..31) of row `r`: K-major rows hold K=16
// elements of 2 bytes. Without swizzle the 8x16-byte core matrices are
// contiguous, LBO apart along K and SBO apart along M/N; with a swizzle,
// rows are `swizzle` bytes apart in 8-row atoms SBO apart, and bits 4-6 of
// the address are XORed with bits 7-9 (as many bits as the swizzle has
// 16-byte chunks, log2: 1, 2 or 3).
std::uint32_t address(const Operand& o, int r, int b) {
  std::uint32_t chunk = static_cast<std::uint32_t>(b) / 16, within = static_cast<std::uint32_t>(b) % 16;
  std::uint32_t row = static_cast<std::uint32_t>(r);
  if (o.swizzle == 0) return o.start + row / 8 * o.sbo + chunk * o.lbo + row % 8 * 16 + within;
  std::uint32_t a = o.start + row / 8 * o.sbo + row % 8 * o.swizzle + chunk * 16;
  std::uint32_t mask = o.swizzle / 16 - 1;
  return (a ^ ((a >> 7 & mask) << 4)) + within;
}

// Where each element of a rows x K operand lives, and the regions it spans.
struct Placed {
  std::vector<std::pair<Region*, std::size_t>> elems;  // row-major, K per row
  std::vector<gpu::Span> spans;                         // the bytes read, merged
};

Placed place(Warp& w, const Instr& in, const Operand& o, int rows, int element_bytes) {
  std::vector<std::uint32_t> chunks;
  for (int r = 0; r < rows; ++r)
    for (int b = 0; b < 32; b += 16) chunks.push_back(address(o, r, b));
  std::sort(chunks.begin(), chunks.end());
  Placed p;
  for (std::size_t i = 0; i < chunks.size();) {
    std::size_t j = i + 1;
    while (j < chunks.size() && chunks[j] <= chunks[j - 1] + 16) ++j;
    std::uint32_t bytes = chunks[j - 1] + 16 - chunks[i];
    auto [region, off] = w.state.resolve(Space::shared, chunks[i], bytes, w.thread.cta, in);
    p.spans.push_back(gpu::Span{region, off, bytes});
    i = j;
  }
  for (int r = 0; r < rows; ++r)
    for (int b = 0; b < 32; b += 16) {  // a 16-byte chunk holds 16 / element_bytes consecutive elements
      auto [region, off] = w.state.resolve(Space::shared, address(o, r, b), 16, w.thread.cta, in);
      for (int j = 0; j < 16; j += element_bytes) p.elems.emplace_back(region, off + static_cast<std::size_t>(j));
    }
  return p;
}

// What one warp's mma computes: its 16 rows of D (PTX ISA 9.7.15, register
// fragment of D for .m64nNk16: register i of lane l holds row
// 16 * warp + l / 4 + 8 * (i / 2 % 2), column 8 * (i / 4) + 2 * (l % 4) + i % 2).
struct Mma {
  Shape shape;
  int warp_in_group = 0;
  std::vector<int> d;               // accumulator registers, by fragment index
  std::uint32_t accumulate = 0;     // lanes whose scale-d is 1 (D += A * B)
  float scale_a = 1, scale_b = 1;
  Placed a, b;
  std::shared_ptr<std::vector<std::uint64_t>> shadow;

  void run(std::source_location loc) const {
    for (const gpu::Span& s : a.spans) s.region->access(s.first, s.count, false, Proxy::async, "wgmma.read_a", loc);
    for (const gpu::Span& s : b.spans) s.region->access(s.first, s.count, false, Proxy::async, "wgmma.read_b", loc);
    // Each element decoded once (the warp's 16 rows of A, all N rows of B),
    // not once per product: decoding was most of an fp8 GEMM's time.
    const std::vector<float> fa = values(a, *shape.a, 16 * warp_in_group, 16);
    const std::vector<float> fb = values(b, *shape.b, 0, shape.n);
    const auto K = static_cast<std::size_t>(shape.k);
    for (int l = 0; l < 32; ++l)
      for (std::size_t i = 0; i < d.size(); ++i) {
        int row = l / 4 + 8 * static_cast<int>(i / 2 % 2);  // within the warp's 16
        int col = 8 * static_cast<int>(i / 4) + 2 * (l % 4) + static_cast<int>(i % 2);
        std::uint64_t& reg = (*shadow)[static_cast<std::size_t>(d[i]) * 32 + static_cast<std::size_t>(l)];
        float acc = (accumulate >> l & 1) ? std::bit_cast<float>(static_cast<std::uint32_t>(reg)) : 0.0f;
        const float* x = fa.data() + static_cast<std::size_t>(row) * K;
        const float* y = fb.data() + static_cast<std::size_t>(col) * K;
        for (std::size_t k = 0; k < K; ++k) acc += scale_a * x[k] * scale_b * y[k];
        reg = std::bit_cast<std::uint32_t>(acc);
      }
  }

  // The values of rows [first, first + rows) of operand `p` in format `f`, K per row.
  std::vector<float> values(const Placed& p, const FloatFormat& f, int first, int rows) const {
    const int eb = shape.element_bytes();
    std::vector<float> out(static_cast<std::size_t>(rows * shape.k));
    for (std::size_t i = 0; i < out.size(); ++i) {
      std::uint32_t bits = 0;
      auto [region, off] = p.elems[static_cast<std::size_t>(first * shape.k) + i];
      std::memcpy(&bits, region->bytes() + off, static_cast<std::size_t>(eb));
      if (eb == 4) bits >>= 13;  // .tf32: the mma reads the top 19 bits of the f32
      out[i] =
          static_cast<float>(decode(bits, f));  // exact: f16, bf16, tf32 and fp8 values are floats
    }
    return out;
  }
};

void issue(Warp& w, const Instr& in, std::uint32_t exec) {
  if (exec != 0xffffffffu)
    throw ModelError("wgmma.mma_async with inactive lanes: .sync.aligned needs every lane of the "
                     "warpgroup to execute it", in.loc);
  auto& wg = w.wgmma;
  std::size_t regs = w.state.program().reg_names.size();
  if (!wg.shadow) {
    wg.shadow = std::make_shared<std::vector<std::uint64_t>>(regs * 32);
    wg.last_op.assign(regs, 0);
    wg.last_line.assign(regs, 0);
  }
  const Type u64{Type::Kind::u, 8}, pred{Type::Kind::pred, 1};
  Mma m;
  m.shape = *shape_of(in);
  m.warp_in_group = w.thread.warp % 4;
  m.scale_a = in.args[4].imm < 0 ? -1.0f : 1.0f;
  m.scale_b = in.args[5].imm < 0 ? -1.0f : 1.0f;
  Operand oa = operand(w.value(in.args[1], 0, u64), in), ob = operand(w.value(in.args[2], 0, u64), in);
  m.a = place(w, in, oa, 64, m.shape.element_bytes());
  m.b = place(w, in, ob, m.shape.n, m.shape.element_bytes());
  m.shadow = wg.shadow;
  ++wg.issued;
  for (const Arg& r : in.args[0].elems) {
    m.d.push_back(r.reg);
    if (wg.last_op[static_cast<std::size_t>(r.reg)] <= wg.retired)  // not in flight: the mma reads the register
      for (int l = 0; l < 32; ++l) (*wg.shadow)[static_cast<std::size_t>(r.reg) * 32 + l] = w.reg(r.reg, l);
    wg.last_op[static_cast<std::size_t>(r.reg)] = wg.issued;
    wg.last_line[static_cast<std::size_t>(r.reg)] = in.line;
  }
  for (int l = 0; l < 32; ++l)
    if (w.value(in.args[3], l, pred) != 0) m.accumulate |= 1u << l;
  Footprint fp;
  for (const auto* p : {&m.a, &m.b})
    for (const gpu::Span& s : p->spans) fp.push_back(s.touches(false));
  std::string name = fmt::format("{}.wgmma{} {} x {}", w.thread.name, wg.issued,
                                 w.state.shared_name(w.thread.cta, oa.start),
                                 w.state.shared_name(w.thread.cta, ob.start));
  std::source_location loc = in.loc;
  gpu::detail::issue_wgmma(std::move(name), std::move(fp), [m = std::move(m), loc] { m.run(loc); }, loc);
}

// wgmma.wait_group N has returned: every mma of the groups older than the N
// newest is done, and its accumulators become the warp's registers again.
void retire(Warp& w, std::uint32_t n) {
  auto& wg = w.wgmma;
  if (wg.group_ends.size() <= n) return;
  std::size_t k = wg.group_ends.size() - n;
  std::uint32_t upto = wg.group_ends[k - 1];
  wg.group_ends.erase(wg.group_ends.begin(), wg.group_ends.begin() + static_cast<long>(k));
  for (std::size_t r = 0; r < wg.last_op.size(); ++r)
    if (wg.last_op[r] > wg.retired && wg.last_op[r] <= upto)
      for (int l = 0; l < 32; ++l) w.reg(static_cast<int>(r), l) = (*wg.shadow)[r * 32 + static_cast<std::size_t>(l)];
  wg.retired = std::max(wg.retired, upto);
}

void each_register(const Arg& a, const std::function<void(int)>& f) {
  if (a.kind == Arg::Kind::reg) f(a.reg);
  for (const Arg& e : a.elems) each_register(e, f);
}

}  // namespace

std::string wgmma_problem(const Instr& in) {
  if (in.op == Op::wgmma_wait && in.args.at(0).kind != Arg::Kind::imm) return "N must be an immediate";
  if (in.op != Op::wgmma_mma) return {};
  auto s = shape_of(in);
  if (!s)
    return "only the dense .m64nNk16.f32.f16.f16, .m64nNk16.f32.bf16.bf16, .m64nNk8.f32.tf32.tf32 "
           "and .m64nNk32.f32.{e4m3,e5m2}.{e4m3,e5m2} forms of wgmma.mma_async are interpreted";
  if (in.args[0].kind != Arg::Kind::vector || in.args[0].elems.size() != static_cast<std::size_t>(s->n / 2))
    return fmt::format("the accumulator of .m64n{}k{}.f32 is a vector of {} registers", s->n, s->k, s->n / 2);
  for (const Arg& r : in.args[0].elems)
    if (r.kind != Arg::Kind::reg) return "the accumulator vector must hold registers";
  if (in.args[1].kind == Arg::Kind::vector)
    return "A from registers is not interpreted: give both operands as shared-memory descriptors";
  for (int i : {4, 5})
    if (in.args[i].kind != Arg::Kind::imm || (in.args[i].imm != 1 && in.args[i].imm != -1))
      return "imm-scale-a and imm-scale-b must be the immediates 1 or -1";
  if (s->k == 16 && in.args.size() < 8) return "the .f16/.bf16 forms take imm-trans-a and imm-trans-b";
  for (std::size_t i : {6, 7})  // the fp8 forms have no transpose operands: K-major only
    if (i < in.args.size() && (in.args[i].kind != Arg::Kind::imm || in.args[i].imm != 0))
      return "only K-major operands (imm-trans-a and imm-trans-b 0) are interpreted";
  return {};
}

void check_accumulators(const Warp& w, const Instr& in) {
  const auto& wg = w.wgmma;
  for (std::size_t i = 0; i < in.args.size(); ++i) {
    if (in.op == Op::wgmma_mma && i == 0) continue;  // a chain of mmas on one accumulator runs in order
    each_register(in.args[i], [&](int r) {
      if (wg.last_op[static_cast<std::size_t>(r)] > wg.retired)
        throw ModelError(fmt::format("`{}` uses {}, an accumulator register of the wgmma.mma_async "
                                     "at PTX line {}, before a wgmma.wait_group covers that mma "
                                     "(PTX: the accumulator must not be accessed until the wait; "
                                     "CUTLASS: warpgroup_wait<N>())",
                                     in.opcode, w.state.program().reg_names[static_cast<std::size_t>(r)],
                                     wg.last_line[static_cast<std::size_t>(r)]),
                         in.loc);
    });
  }
  if (in.guard >= 0 && wg.last_op[static_cast<std::size_t>(in.guard)] > wg.retired)
    throw ModelError(fmt::format("`{}` is guarded by an accumulator register in flight", in.opcode), in.loc);
}

void run_wgmma(Warp& w, const Instr& in, std::uint32_t exec) {
  switch (in.op) {
    case Op::wgmma_fence: gpu::wgmma_fence(in.loc); return;  // once per warp, as the groups
    case Op::wgmma_mma: issue(w, in, exec); return;
    case Op::wgmma_commit:
      gpu::wgmma_commit_group();
      w.wgmma.group_ends.push_back(w.wgmma.issued);
      return;
    case Op::wgmma_wait: {
      auto n = static_cast<std::uint32_t>(in.args.at(0).imm);
      gpu::wgmma_wait_group(n, in.loc);
      retire(w, n);
      return;
    }
    default: return;
  }
}

}  // namespace heddle::ptx
