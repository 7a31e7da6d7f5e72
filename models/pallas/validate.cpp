#include "models/pallas/validate.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>
#include <set>

#include "checker/engine/errors.hpp"

namespace heddle::pallas {
namespace {

using Bound = std::set<std::int64_t>;

[[noreturn]] void bad(const Program& p, const std::string& what) {
  throw UsageError(fmt::format("{}: malformed heddle Pallas export: {}; export the kernel again "
                               "with heddle_pallas.export",
                               p.path, what));
}

bool semaphore_dtype(const std::string& d) {
  return d == "dma_sem" || d == "semaphore" || d == "barrier_semaphore" || d == "barrier";
}

void check_aval(const Program& p, const Aval& a, const std::string& what) {
  std::int64_t n = 1;
  for (auto d : a.shape) {
    if (d < 0 || d > kMaxElements || (n *= d) > kMaxElements)
      bad(p, fmt::format("{} has shape [{}]: each array holds at most {} elements", what,
                         fmt::join(a.shape, ", "), kMaxElements));
  }
  if (!semaphore_dtype(a.dtype)) parse_dtype(a.dtype);  // invalid_argument names the dtype
}

std::string where(const Eqn& e) {
  return fmt::format("equation {} at {}:{}", e.prim, e.loc.file_name(), e.loc.line());
}

// Binders (constants, inputs) must be variables; every read must follow its binding.
void check_jaxpr(const Program& p, const Jaxpr& j, Bound bound) {
  auto bind = [&](const Atom& a, const char* what) {
    if (!a.var) bad(p, fmt::format("a jaxpr's {} is a literal, not a variable", what));
    check_aval(p, a.aval, fmt::format("variable {}", *a.var));
    bound.insert(*a.var);
  };
  for (const auto& a : j.constvars) bind(a, "constant");
  for (const auto& a : j.open_constvars) bind(a, "constant");
  for (const auto& a : j.invars) bind(a, "input");
  auto read = [&](const Atom& a, const std::string& at) {
    if (a.var && !bound.count(*a.var))
      bad(p, fmt::format("{} reads variable {} before it is bound", at, *a.var));
  };
  for (const auto& e : j.eqns) {
    for (const auto& a : e.ins) read(a, where(e));
    for (const auto& [_, subs] : e.subs)
      for (const auto& s : subs) check_jaxpr(p, *s, bound);
    for (const auto& a : e.outs) {
      check_aval(p, a.aval, where(e) + "'s result");
      if (a.var) bound.insert(*a.var);
    }
  }
  for (const auto& a : j.outvars) read(a, "a jaxpr's result");
}

void check_sizes(const Program& p) {
  if (p.devices == 0 || p.cores == 0 || p.devices > kMaxThreads || p.cores > kMaxThreads ||
      p.devices * p.cores > kMaxThreads)
    bad(p, fmt::format("{} devices of {} cores: heddle runs 1 to {} kernel threads", p.devices,
                       p.cores, kMaxThreads));
  std::int64_t points = 1;
  for (auto g : p.grid)
    if (g < 0 || g > kMaxElements || (points *= g) > kMaxElements)
      bad(p, fmt::format("grid ({}) has more than {} points", fmt::join(p.grid, ", "), kMaxElements));
  const std::size_t params = p.num_index_operands + p.num_inputs + p.num_outputs + p.num_scratch;
  if (p.num_index_operands + p.num_inputs > p.operands.size() || p.num_outputs > p.outputs.size() ||
      params > p.kernel.invars.size())
    bad(p, fmt::format("the grid mapping names {} parameters; the kernel takes {}, with {} "
                       "operands and {} outputs",
                       params, p.kernel.invars.size(), p.operands.size(), p.outputs.size()));
  for (const auto& [in, out] : p.aliases)
    if (in >= p.num_index_operands + p.num_inputs || out >= p.num_outputs)
      bad(p, fmt::format("input_output_aliases ({}, {}) is out of range", in, out));
}

// A block's buffer has its array's dtype (the pipeline's DMAs copy bytes).
void check_blocks(const Program& p) {
  const std::size_t ins = p.num_index_operands + p.num_inputs;
  for (std::size_t k = 0; k < ins + p.num_outputs; ++k) {  // a block's buffer has the array's dtype
    const Aval& param = p.kernel.invars[k].aval;
    const Aval& array = k < ins ? p.operands[k] : p.outputs[k - ins];
    if ((param.space == "vmem" || param.space == "smem") && param.dtype != array.dtype)
      bad(p, fmt::format("kernel parameter {} is a {} block of a {} array", k, param.dtype, array.dtype));
  }
}

// Expected outputs: none, or per output none or one list per device of the
// output's size (the TPU route; the GPU route has one device).
void check_expected(const Program& p, std::uint32_t devices) {
  for (double t : {p.expected_rtol, p.expected_atol})
    if (!std::isfinite(t) || t < 0)
      bad(p, fmt::format("expected_tolerance {} is not a finite number >= 0", t));
  if (!p.expected) return;
  if (p.expected->size() > p.outputs.size())
    bad(p, fmt::format("{} expected outputs for {} outputs", p.expected->size(), p.outputs.size()));
  for (std::size_t k = 0; k < p.expected->size(); ++k) {
    const auto& per = (*p.expected)[k];
    std::int64_t n = 1;
    for (auto d : p.outputs[k].shape) n *= d;
    bool ok = per.empty() || per.size() == devices;
    for (const auto& v : per) ok = ok && static_cast<std::int64_t>(v.size()) == n;
    if (!ok)
      bad(p, fmt::format("expected output {} needs {} device(s) of {} values", k, devices, n));
  }
}

// A Mosaic GPU launch: its CTAs and threads fit heddle's thread limit, and
// every output is one of the kernel's operands.
void check_gpu(const Program& p) {
  const std::int64_t threads = p.gpu_mesh.num_threads * p.gpu_mesh.ctas();
  if (threads < 1 || threads > kMaxThreads)
    bad(p, fmt::format("the Mosaic GPU mesh has {} threads (CTAs times num_threads): heddle runs "
                       "1 to {} kernel threads", threads, kMaxThreads));
  if (p.gpu_mesh.grid.size() != p.gpu_mesh.grid_names.size() ||
      p.gpu_mesh.cluster.size() != p.gpu_mesh.cluster_names.size())
    bad(p, "the grid and cluster need one name per dimension");
  if (p.operands.size() != p.kernel.open_constvars.size())
    bad(p, fmt::format("the kernel takes {} refs, the export has {} operands",
                       p.kernel.open_constvars.size(), p.operands.size()));
  for (const auto& o : p.operand_output)
    if (o && *o >= p.outputs.size()) bad(p, fmt::format("operand is output {} of {}", *o, p.outputs.size()));
}

// The grid's dimension semantics: one per grid dimension, each one Mosaic
// TPU knows (pltpu.GridDimensionSemantics, lower-cased by the exporter).
void check_semantics(const Program& p) {
  const auto& sem = p.dimension_semantics;
  if (!sem.empty() && sem.size() != p.grid.size())
    bad(p, fmt::format("grid_mapping.dimension_semantics has {} entries for a grid of rank {}",
                       sem.size(), p.grid.size()));
  for (const auto& s : sem)
    if (s != "parallel" && s != "arbitrary" && s != "core_parallel" && s != "subcore_parallel")
      bad(p, fmt::format("grid_mapping.dimension_semantics \"{}\" is not one of parallel, "
                         "arbitrary, core_parallel, subcore_parallel",
                         s.substr(0, 64)));
}

// input_output_aliases: each input and each output at most once (an input
// aliased to two outputs, or a chain through one, has no single buffer),
// of the same shape and dtype (JAX's pallas_call requires it).
void check_aliases(const Program& p) {
  std::set<std::size_t> ins, outs;
  for (const auto& [in, out] : p.aliases) {
    if (!ins.insert(in).second || !outs.insert(out).second)
      bad(p, fmt::format("input_output_aliases names input {} or output {} twice", in, out));
    const Aval& a = p.operands[in];
    const Aval& b = p.outputs[out];
    if (a.shape != b.shape || a.dtype != b.dtype)
      bad(p, fmt::format("input_output_aliases ({}, {}): input {} [{}] and output {} [{}] differ",
                         in, out, a.dtype, fmt::join(a.shape, ", "), b.dtype, fmt::join(b.shape, ", ")));
  }
}

// The ref operand of get, swap and addupdate must be a ref ("ref": true in
// its aval, and where its variable is bound in the same jaxpr).
void check_refs(const Program& p, const Jaxpr& j) {
  std::set<std::int64_t> values;  // variables bound as values (not refs) in `j`
  auto note = [&values](const Atom& a) {
    if (a.var && !a.aval.ref) values.insert(*a.var);
  };
  for (const auto& a : j.invars) note(a);
  for (const auto& e : j.eqns) {
    const bool ref_op = e.prim == "get" || e.prim == "swap" || e.prim == "addupdate";
    if (ref_op && !e.ins.empty() &&
        (!e.ins[0].aval.ref || (e.ins[0].var && values.count(*e.ins[0].var))))
      bad(p, fmt::format("{} uses {} as a ref, but it is a value (its aval has no \"ref\": true)",
                         where(e), e.ins[0].var ? fmt::format("variable {}", *e.ins[0].var)
                                                : std::string("a literal")));
    for (const auto& [_, subs] : e.subs)
      for (const auto& sub : subs) check_refs(p, *sub);
    for (const auto& a : e.outs) note(a);
  }
}
}  // namespace

void validate(const Program& p) {
  if (p.gpu) {
    check_gpu(p);
    for (const auto& a : p.operands) check_aval(p, a, "an operand");
    check_jaxpr(p, p.kernel, {});
    check_expected(p, 1);
    return;
  }
  check_sizes(p);
  for (const auto& a : p.operands) check_aval(p, a, "an operand");
  for (const auto& a : p.outputs) check_aval(p, a, "an output");
  for (const auto& b : p.blocks) {
    check_aval(p, b.array, "a block spec's array");
    check_jaxpr(p, b.index_map, {});
  }
  check_semantics(p);
  check_aliases(p);
  check_blocks(p);
  check_jaxpr(p, p.kernel, {});
  check_expected(p, p.devices);
  check_refs(p, p.kernel);
}

}  // namespace heddle::pallas
