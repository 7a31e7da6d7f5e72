#include "models/pallas/program.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <limits>
#include <iterator>
#include <stdexcept>

#include "checker/engine/errors.hpp"
#include "checker/engine/schedule.hpp"
#include "models/pallas/interp.hpp"
#include "models/pallas/source_loc.hpp"
#include "models/pallas/validate.hpp"

namespace heddle::pallas {
namespace {
using nlohmann::json;

Aval parse_aval(const json& j) {
  Aval a;
  for (const auto& d : j.value("shape", json::array())) a.shape.push_back(integer<std::int64_t>(d));
  a.dtype = j.value("dtype", "int32");
  a.ref = j.value("ref", false);
  a.space = j.value("space", "");
  a.num_arrivals = integer_or(j, "num_arrivals", 0u);
  return a;
}

Value literal_value(const json& lit, const std::string& dtype) {
  DType d = parse_dtype(dtype);
  if (lit.is_array()) throw std::invalid_argument("array literals are not supported");
  return Value::scalar(d, number(lit));
}

Atom parse_atom(const json& j) {
  Atom a;
  if (j.contains("var")) {
    a.var = integer<std::int64_t>(j.at("var"));
    a.aval = parse_aval(j);
  } else {
    a.aval.dtype = j.at("dtype").get<std::string>();
    a.literal = literal_value(j.at("lit"), a.aval.dtype);
  }
  return a;
}

Value array_value(const json& values, const Aval& aval) {
  Value v = Value::filled(parse_dtype(aval.dtype), aval.shape, 0);
  std::vector<double> flat;
  std::function<void(const json&)> walk = [&](const json& x) {
    if (x.is_array()) {
      for (const auto& e : x) walk(e);
    } else {
      flat.push_back(number(x));
    }
  };
  walk(values);
  if (flat.size() != v.data.size()) throw std::invalid_argument("constant of the wrong size");
  for (std::size_t i = 0; i < flat.size(); ++i) v.data[i] = normalize(v.dtype, flat[i]);
  return v;
}

std::shared_ptr<Jaxpr> parse_jaxpr(const json& j);

// Collects sub-jaxprs ({"jaxpr": ...} values, alone or in lists) of a params object.
void collect_subs(const json& params, Eqn& e) {
  for (const auto& [key, value] : params.items()) {
    if (value.is_object() && value.contains("jaxpr")) {
      e.subs[key].push_back(parse_jaxpr(value.at("jaxpr")));
    } else if (value.is_array()) {
      for (const auto& item : value)
        if (item.is_object() && item.contains("jaxpr"))
          e.subs[key].push_back(parse_jaxpr(item.at("jaxpr")));
    }
  }
}

Eqn parse_eqn(const json& j) {
  Eqn e;
  e.prim = j.at("prim").get<std::string>();
  for (const auto& a : j.at("in")) e.ins.push_back(parse_atom(a));
  for (const auto& a : j.at("out")) e.outs.push_back(parse_atom(a));
  e.params = j.value("params", json::object());
  if (j.contains("src") && j.at("src").is_object()) {
    const auto& s = j.at("src");
    e.loc = python_location(s.value("file", "?"), integer_or(s, "line", 0u), s.value("function", ""));
  }
  collect_subs(e.params, e);
  return e;
}

// Sub-jaxprs (closed_call, pjit, cond, while, scan) nest at most this deep:
// JAX's own kernels nest a few levels; 5,000 nested closed_calls took 8 GB
// and an abort (issue 51.2).
constexpr int kMaxJaxprDepth = 64;
thread_local int t_jaxpr_depth = 0;

std::shared_ptr<Jaxpr> parse_jaxpr(const json& j) {
  struct Nest {
    Nest() {
      if (++t_jaxpr_depth > kMaxJaxprDepth) {
        t_jaxpr_depth = 0;  // the throw unwinds every level
        throw std::invalid_argument(fmt::format(
            "malformed heddle Pallas export: sub-jaxprs (closed_call, pjit, cond, while, scan) "
            "nest deeper than heddle's limit of {} levels",
            kMaxJaxprDepth));
      }
    }
    ~Nest() { t_jaxpr_depth = std::max(0, t_jaxpr_depth - 1); }
  } nest;
  auto out = std::make_shared<Jaxpr>();
  for (const auto& c : j.value("constvars", json::array())) {
    Atom a = parse_atom(c);
    a.literal = array_value(c.at("value"), a.aval);
    out->constvars.push_back(std::move(a));
  }
  for (const auto& v : j.value("open_constvars", json::array()))
    out->open_constvars.push_back(parse_atom(v));
  for (const auto& v : j.at("invars")) out->invars.push_back(parse_atom(v));
  for (const auto& v : j.at("outvars")) out->outvars.push_back(parse_atom(v));
  for (const auto& e : j.at("eqns")) out->eqns.push_back(parse_eqn(e));
  out->arg_names = j.value("arg_names", std::vector<std::string>{});
  return out;
}

std::vector<std::vector<double>> per_device(const json& j) {
  std::vector<std::vector<double>> out;
  for (const auto& device : j) {
    auto& values = out.emplace_back();
    for (const auto& x : device) values.push_back(number(x));
  }
  return out;
}

void parse_grid(const json& g, Program& p) {
  p.grid = integers<std::int64_t>(g.at("grid"));
  p.dimension_semantics = g.at("dimension_semantics").get<std::vector<std::string>>();
  p.num_index_operands = integer<std::size_t>(g.at("num_index_operands"));
  p.num_inputs = integer<std::size_t>(g.at("num_inputs"));
  p.num_outputs = integer<std::size_t>(g.at("num_outputs"));
  p.num_scratch = integer<std::size_t>(g.at("num_scratch"));
  for (const auto& b : g.at("blocks")) {
    BlockSpec s;
    for (const auto& d : b.at("block_shape"))
      s.block_shape.push_back(d.is_null() ? std::nullopt : std::optional(integer<std::int64_t>(d)));
    s.array = parse_aval(b.at("array"));
    s.index_map = *parse_jaxpr(b.at("index_map"));
    p.blocks.push_back(std::move(s));
  }
}

// A Mosaic GPU export: the plgpu mesh and the kernel's GMEM operands.
void parse_gpu(const json& j, Program& p) {
  p.gpu = true;
  const json& m = j.at("gpu_mesh");
  p.gpu_mesh.grid = integers<std::int64_t>(m.at("grid"));
  p.gpu_mesh.cluster = integers<std::int64_t>(m.at("cluster"));
  p.gpu_mesh.grid_names = m.at("grid_names").get<std::vector<std::string>>();
  p.gpu_mesh.cluster_names = m.at("cluster_names").get<std::vector<std::string>>();
  p.gpu_mesh.num_threads = integer<std::uint32_t>(m.at("num_threads"));
  if (m.at("thread_name").is_string()) p.gpu_mesh.thread_name = m.at("thread_name").get<std::string>();
  for (const auto& o : j.at("gpu_operands")) {
    p.operands.push_back(parse_aval(o.at("aval")));
    p.operand_values.push_back(o.at("values").is_null() ? std::nullopt
                                                        : std::optional(per_device(o.at("values"))));
    p.operand_output.push_back(o.at("output").is_null()
                                   ? std::nullopt
                                   : std::optional(integer<std::size_t>(o.at("output"))));
  }
  for (const auto& o : j.at("outputs")) p.outputs.push_back(parse_aval(o));
}

// A Pallas TPU export: the pallas_call's operands, aliases and grid.
void parse_tpu(const json& j, Program& p) {
  p.devices = integer<std::uint32_t>(j.at("mesh").at("devices"));
  for (const auto& a : j.at("mesh").at("axes"))
    p.mesh_axes.emplace_back(a.at("name").get<std::string>(), integer<std::uint32_t>(a.at("size")));
  p.cores = integer_or(j, "cores", 1u);
  for (const auto& o : j.at("operands")) {
    p.operands.push_back(parse_aval(o.at("aval")));
    p.operand_values.push_back(o.at("values").is_null() ? std::nullopt
                                                        : std::optional(per_device(o.at("values"))));
  }
  for (const auto& o : j.at("outputs")) p.outputs.push_back(parse_aval(o));
  for (const auto& a : j.at("input_output_aliases"))
    p.aliases.emplace_back(integer<std::size_t>(a.at(0)), integer<std::size_t>(a.at(1)));
  parse_grid(j.at("grid_mapping"), p);
}

Program parse_program(const json& j, const std::string& path) {
  Program p;
  p.path = path;
  if (j.value("format", "") != kFormat)
    throw UsageError(fmt::format("{} is not a heddle Pallas export (format {})", path,
                                 j.value("format", "missing")));
  if (integer_or(j, "version", 0) > kVersion)
    throw UsageError(fmt::format("{} has format version {}, this heddle reads {}: rebuild heddle",
                                 path, integer_or(j, "version", 0), kVersion));
  p.name = j.value("name", "kernel");
  if (j.value("kind", "pallas_tpu") == "mosaic_gpu") {
    parse_gpu(j, p);
  } else {
    parse_tpu(j, p);
  }
  p.kernel = *parse_jaxpr(j.at("kernel"));
  p.arg_names = j.value("arg_names", std::vector<std::string>{});
  while (p.arg_names.size() < p.kernel.invars.size())
    p.arg_names.push_back(fmt::format("arg{}", p.arg_names.size()));
  if (j.contains("kernel_source") && j.at("kernel_source").is_object()) {
    const auto& s = j.at("kernel_source");
    p.kernel_loc = python_location(s.value("file", "?"), integer_or(s, "line", 0u), s.value("function", ""));
  }
  if (j.contains("expected_outputs") && !j.at("expected_outputs").is_null()) {
    std::vector<std::vector<std::vector<double>>> e;
    for (const auto& o : j.at("expected_outputs"))
      e.push_back(o.is_null() ? std::vector<std::vector<double>>{} : per_device(o));
    p.expected = std::move(e);
  }
  if (j.contains("expected_tolerance") && !j.at("expected_tolerance").is_null()) {
    const auto& t = j.at("expected_tolerance");
    p.expected_rtol = t.contains("rtol") ? number(t.at("rtol")) : 0.0;
    p.expected_atol = t.contains("atol") ? number(t.at("atol")) : 0.0;
  }
  return p;
}
}  // namespace

double number(const json& j) {
  if (j.is_boolean()) return j.get<bool>() ? 1 : 0;
  if (j.is_number()) return j.get<double>();
  if (j == "nan") return std::numeric_limits<double>::quiet_NaN();
  if (j == "inf") return std::numeric_limits<double>::infinity();
  if (j == "-inf") return -std::numeric_limits<double>::infinity();
  throw std::invalid_argument("expected a number (or \"nan\", \"inf\", \"-inf\"), got " +
                              j.dump().substr(0, 40));
}

const Jaxpr& Eqn::sub(const std::string& param, std::size_t i) const {
  auto it = subs.find(param);
  if (it == subs.end() || i >= it->second.size())
    throw ModelError(fmt::format("{} has no sub-jaxpr {}[{}] in the export", prim, param, i), loc);
  return *it->second[i];
}

namespace {
// A parameter of a known primitive that the interpreter does not model
// (Mosaic GPU multicast and reducing copies, core_map over other meshes):
// its name, or "" when the equation is supported.
std::string unsupported_param(const Eqn& e) {
  static const std::map<std::string, std::vector<std::string>> must_be_null{
      {"copy_gmem_to_smem", {"collective_axes", "partitioned_axis"}},
      {"copy_smem_to_gmem", {"reduction_op"}}};
  if (e.prim == "core_map") {
    const auto& mesh = e.params.value("mesh", json());
    return mesh.is_object() && mesh.value("type", "") == "WarpMesh" ? "" : "mesh";
  }
  auto it = must_be_null.find(e.prim);
  if (it == must_be_null.end()) return "";
  for (const auto& p : it->second)
    if (e.params.contains(p) && !e.params.at(p).is_null()) return p;
  return "";
}
}  // namespace

void check_supported(const Jaxpr& j, const std::string& path) {
  for (const auto& e : j.eqns) {
    if (!has_primitive(e.prim))
      throw UsageError(fmt::format(
          "{}: primitive {} at {}:{} is not supported by heddle's Pallas interpreter "
          "(models/pallas/README.md lists what is); rewrite that line with supported "
          "operations",
          path, e.prim, e.loc.file_name(), e.loc.line()));
    if (auto p = unsupported_param(e); !p.empty())
      throw UsageError(fmt::format(
          "{}: primitive {} with {}={} at {}:{} is not supported by heddle's Pallas interpreter "
          "(models/pallas/README.md lists what is)",
          path, e.prim, p, e.params.value(p, json()).dump().substr(0, 60), e.loc.file_name(),
          e.loc.line()));
    for (const auto& [_, subs] : e.subs)
      for (const auto& s : subs) check_supported(*s, path);
  }
}

Program load_program(const std::string& path) {
  std::ifstream f(path);
  if (!f) throw UsageError(fmt::format("cannot read {}: export it with heddle_pallas.export", path));
  const std::string text{std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
  // Refused before parsing: 5,000 nested closed_calls took 12 s to parse (issue 51.2).
  constexpr std::size_t kMaxJsonDepth = 16 * kMaxJaxprDepth;
  if (nesting_depth(text, kMaxJsonDepth) > kMaxJsonDepth)
    throw UsageError(fmt::format("{}: malformed heddle Pallas export: JSON nested deeper than {} "
                                 "levels (sub-jaxprs nest at most {} deep)",
                                 path, kMaxJsonDepth, kMaxJaxprDepth));
  json j;
  try {
    j = json::parse(text);
  } catch (const json::exception& e) {
    throw UsageError(fmt::format("{} is not valid JSON: {}", path, e.what()));
  }
  try {
    Program p = parse_program(j, path);
    validate(p);
    check_supported(p.kernel, path);
    for (const auto& b : p.blocks) check_supported(b.index_map, path);
    return p;
  } catch (const json::exception& e) {
    throw UsageError(fmt::format("{}: malformed heddle Pallas export: {}", path, e.what()));
  } catch (const std::invalid_argument& e) {
    throw UsageError(fmt::format("{}: {}", path, e.what()));
  }
}

}  // namespace heddle::pallas
