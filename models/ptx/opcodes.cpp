#include "models/ptx/opcodes.hpp"

#include <algorithm>
#include <cctype>
#include <map>

namespace heddle::ptx {
namespace {

std::vector<std::string> split(const std::string& opcode) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (true) {
    std::size_t dot = opcode.find('.', start);
    parts.push_back(opcode.substr(start, dot - start));
    if (dot == std::string::npos) return parts;
    start = dot + 1;
  }
}

bool has(const std::vector<std::string>& mods, const char* m) {
  return std::find(mods.begin(), mods.end(), m) != mods.end();
}

std::optional<Space> parse_space(const std::string& m) {
  if (m == "global") return Space::global;
  if (m == "shared" || m == "shared::cta" || m == "shared::cluster") return Space::shared;
  if (m == "param") return Space::param;
  if (m == "local") return Space::local;
  if (m == "const") return Space::constant;
  return std::nullopt;
}

// Operations decided by their first part alone.
const std::map<std::string, Op>& simple_ops() {
  static const std::map<std::string, Op> ops = {
      {"mov", Op::mov},   {"add", Op::add},   {"sub", Op::sub},   {"mul", Op::mul},
      {"mad", Op::mad},   {"div", Op::div},   {"rem", Op::rem},   {"min", Op::min},
      {"max", Op::max},   {"abs", Op::abs},   {"neg", Op::neg},   {"and", Op::and_},
      {"or", Op::or_},    {"xor", Op::xor_},  {"not", Op::not_},  {"shl", Op::shl},
      {"shr", Op::shr},   {"setp", Op::setp}, {"selp", Op::selp}, {"cvt", Op::cvt},
      {"cvta", Op::cvta}, {"ld", Op::ld},     {"st", Op::st},     {"bra", Op::bra},
      {"ret", Op::exit},  {"exit", Op::exit}, {"elect", Op::elect}, {"shfl", Op::shfl},
      {"atom", Op::atom}, {"red", Op::red},   {"membar", Op::fence_order}, {"fma", Op::mad},
      {"call", Op::call},
      {"bfi", Op::bfi},   {"bfe", Op::bfe},   {"prmt", Op::prmt}, {"popc", Op::popc},
      {"clz", Op::clz},   {"brev", Op::brev}, {"lop3", Op::lop3}, {"shf", Op::shf},   {"bfind", Op::bfind},
      {"vote", Op::vote}, {"activemask", Op::activemask}, {"nanosleep", Op::nanosleep},
      {"trap", Op::trap}, {"brkpt", Op::trap}, {"setmaxnreg", Op::setmaxnreg}, {"ldmatrix", Op::ldmatrix},
      {"stmatrix", Op::stmatrix}, {"prefetch", Op::hint}, {"prefetchu", Op::hint},
      {"griddepcontrol", Op::hint}, {"mapa", Op::mapa}, {"getctarank", Op::getctarank}};
  return ops;
}

// The async, barrier and fence family (PTX ISA 9.7.9.25-26, 9.7.13, 9.7.12).
std::optional<Op> special_op(const std::string& base, const std::vector<std::string>& m) {
  auto at = [&](std::size_t i, const char* s) { return m.size() > i && m[i] == s; };
  if (base == "barrier" && at(0, "cluster")) {  // PTX ISA 9.7.13.3 (barrier.cluster)
    if (at(1, "arrive")) return Op::bar_cluster_arrive;
    if (at(1, "wait")) return Op::bar_cluster_wait;
    return std::nullopt;
  }
  if (base == "bar" || base == "barrier") {
    if (at(0, "warp") && at(1, "sync")) return Op::bar_warp_sync;
    if (has(m, "sync") || (base == "bar" && m.empty())) return Op::bar_sync;
    if (has(m, "arrive")) return Op::bar_arrive;
    return std::nullopt;
  }
  if (base == "fence") {
    if (at(0, "proxy") && at(1, "async")) return Op::fence_proxy_async;
    if (at(0, "proxy") && at(1, "tensormap::generic") && has(m, "acquire"))
      return Op::fence_tensormap_acquire;
    if (at(0, "proxy") && at(1, "tensormap::generic") && has(m, "release"))
      return Op::fence_tensormap_release;
    if (at(0, "mbarrier_init") && has(m, "release")) return Op::fence_mbarrier_init;
    if (at(0, "acq_rel") || at(0, "sc")) return Op::fence_order;
    return std::nullopt;
  }
  if (base == "mbarrier") {
    if (at(0, "init")) return Op::mbar_init;
    if (at(0, "arrive") || at(0, "arrive_drop")) return Op::mbar_arrive;
    if (at(0, "expect_tx")) return Op::mbar_expect_tx;
    if (at(0, "try_wait")) return Op::mbar_try_wait;
    if (at(0, "test_wait")) return Op::mbar_test_wait;
    return std::nullopt;
  }
  if (base == "cp" && at(0, "async") && at(1, "bulk")) {
    if (at(2, "commit_group")) return Op::bulk_commit;
    if (at(2, "wait_group")) return Op::bulk_wait;
    if (at(2, "prefetch")) return Op::prefetch;  // PTX ISA 9.7.9.25.4.4, 9.7.9.25.5.3
    if (at(2, "tensor") && has(m, "bulk_group") && has(m, "global")) return Op::tma_store;
    if (at(2, "tensor") && has(m, "mbarrier::complete_tx::bytes")) return Op::tma_load;
    if (at(2, "tensor")) return std::nullopt;
    // the non-tensor copies (PTX ISA 9.7.9.25.4.1): one shape each (bulk_copy.cpp)
    if ((at(2, "global") && at(3, "shared::cta") && has(m, "bulk_group")) ||
        (at(2, "shared::cluster") && (at(3, "global") || at(3, "shared::cta")) &&
         has(m, "mbarrier::complete_tx::bytes") && !(at(3, "shared::cta") && has(m, "multicast::cluster"))))
      return Op::bulk_copy;
    return std::nullopt;
  }
  if (base == "cp" && at(0, "reduce") && at(1, "async") && at(2, "bulk") && has(m, "bulk_group")) {
    if (at(3, "global") && at(4, "shared::cta")) return Op::bulk_reduce;  // PTX ISA 9.7.9.25.4.2
    if (at(3, "tensor") && has(m, "global") && has(m, "shared::cta")) return Op::bulk_reduce;  // 9.7.9.25.5.2
  }
  if (base == "cp" && at(0, "async")) {  // Ampere cp.async (PTX ISA 9.7.9.24)
    if (at(1, "commit_group")) return Op::cp_async_commit;
    if (at(1, "wait_group") || at(1, "wait_all")) return Op::cp_async_wait;
    if ((at(1, "ca") || at(1, "cg")) && has(m, "global")) return Op::cp_async;
    return std::nullopt;
  }
  if (base == "wgmma") {  // PTX ISA 9.7.15 (asynchronous warpgroup matrix multiply)
    if (at(0, "fence")) return Op::wgmma_fence;
    if (at(0, "mma_async") && !has(m, "sp")) return Op::wgmma_mma;
    if (at(0, "commit_group")) return Op::wgmma_commit;
    if (at(0, "wait_group")) return Op::wgmma_wait;
    return std::nullopt;
  }
  if (base == "tensormap") {
    // PTX ISA 9.7.9.27 (tensormap.replace): the address and the shape fields
    if (at(0, "replace") && at(1, "tile") &&
        (at(2, "global_address") || at(2, "global_dim") || at(2, "global_stride") ||
         at(2, "box_dim") || at(2, "element_stride")))
      return Op::tensormap_replace;
    if (at(0, "cp_fenceproxy")) return Op::tensormap_cp_fenceproxy;
  }
  return std::nullopt;
}

}  // namespace

std::optional<Type> parse_type(const std::string& m) {
  if (m == "pred") return Type{Type::Kind::pred, 1};
  // The narrow floats and their packed pairs (PTX ISA 5.2.5, 5.2.5.1).
  static const std::map<std::string, Type> narrow = {
      {"f16", {Type::Kind::f, 2}},          {"bf16", {Type::Kind::bf, 2}},
      {"f16x2", {Type::Kind::f, 4, 2}},     {"bf16x2", {Type::Kind::bf, 4, 2}},
      {"e4m3", {Type::Kind::e4m3, 1}},      {"e5m2", {Type::Kind::e5m2, 1}},
      {"e4m3x2", {Type::Kind::e4m3, 2, 2}}, {"e5m2x2", {Type::Kind::e5m2, 2, 2}}};
  if (auto it = narrow.find(m); it != narrow.end()) return it->second;
  if (m.size() < 2) return std::nullopt;
  Type t;
  switch (m[0]) {
    case 'u': t.kind = Type::Kind::u; break;
    case 's': t.kind = Type::Kind::s; break;
    case 'b': t.kind = Type::Kind::b; break;
    case 'f': t.kind = Type::Kind::f; break;
    default: return std::nullopt;
  }
  std::string bits = m.substr(1);
  if (bits != "8" && bits != "16" && bits != "32" && bits != "64") return std::nullopt;
  t.bytes = std::stoi(bits) / 8;
  if (t.kind == Type::Kind::f && t.bytes < 2) return std::nullopt;
  return t;
}

bool looks_like_type(const std::string& m) {
  // u8..b128, f16x2, bf16, tf32, e4m3x2, e2m1x2, s4: a letter prefix, then digits
  std::size_t i = 0;
  while (i < m.size() && std::isalpha(static_cast<unsigned char>(m[i]))) ++i;
  if (i == 0 || i > 2 || i == m.size() || !std::isdigit(static_cast<unsigned char>(m[i]))) return false;
  std::string prefix = m.substr(0, i);
  return prefix == "u" || prefix == "s" || prefix == "b" || prefix == "f" || prefix == "bf" ||
         prefix == "tf" || prefix == "e";
}

bool decode_opcode(const std::string& opcode, Instr& in) {
  std::vector<std::string> parts = split(opcode);
  std::string base = parts.front();
  in.mods.assign(parts.begin() + 1, parts.end());
  in.opcode = opcode;
  auto simple = simple_ops().find(base);
  if (simple != simple_ops().end()) {
    in.op = simple->second;
  } else if (auto op = special_op(base, in.mods)) {
    in.op = *op;
  } else {
    return false;
  }
  std::vector<Type> types;
  for (const std::string& m : in.mods) {
    if (auto t = parse_type(m)) types.push_back(*t);
    // A type the interpreter does not read refuses the instruction: it is never
    // computed as another type. .b1024 names the tensormap object (9.7.9.27).
    else if (in.op != Op::wgmma_mma && m != "b1024" && looks_like_type(m)) return false;
    if (auto s = parse_space(m); s && in.space == Space::generic) in.space = *s;
    if (m == "v2") in.vec = 2;
    if (m == "v4") in.vec = 4;
  }
  in.cluster = has(in.mods, "shared::cluster");
  in.wide = has(in.mods, "wide");
  static const std::map<std::string, Flag> flag_names = {
      {"hi", kHi},          {"ftz", kFtz},         {"sat", kSat},         {"satfinite", kSatfinite},
      {"relu", kRelu},      {"NaN", kNaN},         {"rz", kRoundZero},    {"rzi", kRoundZero},
      {"rm", kRoundDown},   {"rmi", kRoundDown},   {"rp", kRoundUp},      {"rpi", kRoundUp},
      {"up", kShflUp},      {"down", kShflDown},   {"bfly", kShflBfly},   {"rni", kRoundNearestInt},
      {"and", kAnd},        {"or", kOr},           {"xor", kXor}};
  for (const std::string& m : in.mods)
    if (auto f = flag_names.find(m); f != flag_names.end()) in.flags |= f->second;
  if (in.op != Op::setp) in.flags &= ~(kAnd | kOr | kXor);  // atom.and, lop3.or: not setp's BoolOp
  in.to = has(in.mods, "to");
  if (in.op == Op::setp && !in.mods.empty()) in.cmp = in.mods.front();
  static const std::map<std::string, Cmp> cmp_names = {
      {"eq", Cmp::eq},   {"ne", Cmp::ne},   {"lt", Cmp::lt},   {"le", Cmp::le},   {"gt", Cmp::gt},
      {"ge", Cmp::ge},   {"lo", Cmp::lo},   {"ls", Cmp::ls},   {"hi", Cmp::hi},   {"hs", Cmp::hs},
      {"equ", Cmp::equ}, {"neu", Cmp::neu}, {"ltu", Cmp::ltu}, {"leu", Cmp::leu}, {"gtu", Cmp::gtu},
      {"geu", Cmp::geu}, {"num", Cmp::num}, {"nan", Cmp::nan}};
  if (auto c = cmp_names.find(in.cmp); c != cmp_names.end()) in.compare = c->second;
  if (!types.empty()) in.type = types.front();
  if (types.size() > 1) in.type2 = types[1];
  // A narrow float computed (not only moved: mov, ld, st, selp) goes to half.cpp.
  bool narrow = std::any_of(types.begin(), types.end(), [](const Type& t) { return t.is_narrow_float(); });
  if (narrow && in.op != Op::wgmma_mma && !narrow_supported(in)) return false;
  in.narrow = narrow && in.op != Op::mov && in.op != Op::ld && in.op != Op::st && in.op != Op::selp &&
              in.op != Op::wgmma_mma;
  if (in.op == Op::cvt && types.size() != 2) return false;
  if ((in.op == Op::tma_load || in.op == Op::tma_store || in.op == Op::prefetch ||
       in.op == Op::bulk_reduce) &&
      (has(in.mods, "im2col") || has(in.mods, "im2col::w") || has(in.mods, "tile::gather4") ||
       has(in.mods, "tile::scatter4")))
    return false;  // tile mode only
  if (in.op == Op::tma_store && has(in.mods, "multicast::cluster")) return false;
  if (in.op == Op::mul || in.op == Op::mad)
    if (!has(in.mods, "lo") && !has(in.mods, "hi") && !has(in.mods, "wide") && !in.type.is_float() &&
        !in.type.is_narrow_float())
      return false;
  if (in.op == Op::atom || in.op == Op::red)
    if (in.space == Space::local || in.space == Space::param) return false;
  return decode_memory_order(in);
}

std::size_t operand_count(const Instr& in) {
  switch (in.op) {
    case Op::trap: case Op::activemask: return in.op == Op::activemask ? 1 : 0;
    case Op::popc: case Op::clz: case Op::brev: case Op::bfind: case Op::ldmatrix: case Op::stmatrix: return 2;
    case Op::nanosleep: case Op::setmaxnreg: return 1;
    case Op::hint: return 0;
    case Op::bfe: case Op::prmt: case Op::shf: return 4;
    case Op::bfi: case Op::lop3: return 5;
    case Op::vote: return 3;
    case Op::bar_cluster_arrive: case Op::bar_cluster_wait: case Op::fence_mbarrier_init:
    case Op::fence_tensormap_release:
    case Op::exit: case Op::ret: case Op::call: case Op::bar_warp_sync: case Op::fence_noop: case Op::fence_order: case Op::fence_proxy_async:
    case Op::bulk_commit: case Op::cp_async_commit: case Op::wgmma_fence:
    case Op::wgmma_commit: return 0;
    case Op::wgmma_wait: return 1;
    case Op::wgmma_mma: return 6;  // d, a-desc, b-desc, scale-d, imm-scale-a/b (f16/bf16: imm-trans-a/b too)
    case Op::bra: case Op::bar_sync: case Op::bar_arrive: case Op::bulk_wait:
    case Op::fence_tensormap_acquire: return 1;  // [addr], size; the .release form has none
    case Op::cp_async_wait: return in.has("wait_all") ? 0 : 1;
    case Op::mov: case Op::abs: case Op::neg: case Op::not_: case Op::cvt: case Op::cvta:
    case Op::ld: case Op::st: case Op::mbar_init: case Op::mbar_expect_tx: case Op::red:
    case Op::tma_store: case Op::tensormap_cp_fenceproxy:
    case Op::elect: return 2;
    case Op::mbar_arrive: return in.has("expect_tx") ? 3 : 2;
    case Op::prefetch: return in.has("tensor") ? 1 : 2;
    case Op::bulk_copy: return in.has("bulk_group") ? 3 : in.has("multicast::cluster") ? 5 : 4;
    case Op::getctarank: return 2;
    case Op::tensormap_replace: return in.has("global_address") ? 2 : 3;  // [map], (ord,) value
    case Op::tma_load: return in.has("multicast::cluster") ? 4 : 3;  // ctaMask after the mbarrier
    case Op::bulk_reduce: return in.has("tensor") ? 2 : 3;
    case Op::mbar_try_wait: case Op::mbar_test_wait: return 3;  // waitComplete, [addr], parity or state
    case Op::mad: case Op::selp: case Op::shfl: return 4;
    default: return 3;  // binary ALU operations, setp, atom, cp.async, the TMA load
  }
}

}  // namespace heddle::ptx
