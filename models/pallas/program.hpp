// A Pallas kernel as exported by heddle_pallas (models/pallas/python): the
// kernel jaxpr with its sub-jaxprs, the grid and block specs, the operands
// and their per-device values. Parsed and validated once, at load.
#pragma once
#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <source_location>
#include <stdexcept>
#include <string>
#include <vector>

#include "models/pallas/value.hpp"

namespace heddle::pallas {

/// The exporter's format name and the version this interpreter reads.
inline constexpr const char* kFormat = "heddle-pallas";
inline constexpr int kVersion = 3;  // 3: NaN/Inf as strings, null expected outputs; 2: Mosaic GPU

/// The abstract value of a variable: an array, or a ref to one in a memory space.
struct Aval {
  Shape shape;
  std::string dtype;     // JAX name; semaphores: "dma_sem", "semaphore", "barrier_semaphore"
  bool ref = false;
  std::string space;     // refs: "any", "hbm", "vmem", "smem", "gmem", "semaphore"
  std::uint32_t num_arrivals = 0;  // Mosaic GPU barriers (dtype "barrier")
};

/// An operand of an equation: a variable or a literal.
struct Atom {
  std::optional<std::int64_t> var;  // variable number, or a literal when empty
  Value literal;
  Aval aval;
};

struct Jaxpr;

/// One equation: primitive, inputs, outputs, parameters, the user's line.
struct Eqn {
  std::string prim;
  std::vector<Atom> ins;
  std::vector<Atom> outs;
  nlohmann::json params;
  std::source_location loc;                                 // the Python line
  std::map<std::string, std::vector<std::shared_ptr<Jaxpr>>> subs;  // sub-jaxprs by param
  /// The sub-jaxpr of `param` (index i of a list, e.g. cond branches).
  const Jaxpr& sub(const std::string& param, std::size_t i = 0) const;
};

/// A (closed) jaxpr: constants with values, inputs, equations, outputs.
struct Jaxpr {
  std::vector<Atom> constvars;       // literal holds the constant's value
  std::vector<Atom> open_constvars;  // bound by the equation's inputs (run_scoped)
  std::vector<Atom> invars;
  std::vector<Atom> outvars;
  std::vector<Eqn> eqns;
  std::vector<std::string> arg_names;  // the traced function's names for invars (may be empty)
};

/// One pallas_call operand or output's block spec in the grid.
struct BlockSpec {
  std::vector<std::optional<std::int64_t>> block_shape;  // nullopt: squeezed dimension
  Aval array;                                            // the whole array
  Jaxpr index_map;                                       // grid indices -> block indices
};

/// A Mosaic GPU kernel's launch (plgpu Mesh): clusters of CTAs, threads per CTA.
struct GpuMesh {
  std::vector<std::int64_t> grid, cluster;         // clusters, CTAs per cluster
  std::vector<std::string> grid_names, cluster_names;
  std::uint32_t num_threads = 1;                   // Pallas threads (warpgroups) per CTA
  std::string thread_name;                         // the thread axis ("" without one)
  /// CTAs per cluster (the product of `cluster`).
  std::int64_t cluster_ctas() const noexcept { return product(cluster); }
  /// CTAs of the launch: clusters times CTAs per cluster.
  std::int64_t ctas() const noexcept { return product(grid) * cluster_ctas(); }

 private:
  static std::int64_t product(const std::vector<std::int64_t>& v) noexcept {
    std::int64_t n = 1;
    for (auto d : v) n *= d;
    return n;
  }
};

/// The whole exported file.
struct Program {
  std::string path;
  std::string name;
  std::uint32_t devices = 1;
  std::uint32_t cores = 1;
  std::vector<std::pair<std::string, std::uint32_t>> mesh_axes;  // (name, size), row-major
  std::vector<Aval> operands;                                   // pallas_call inputs
  std::vector<std::optional<std::vector<std::vector<double>>>> operand_values;  // [device][i]
  std::vector<Aval> outputs;
  std::vector<std::pair<std::size_t, std::size_t>> aliases;     // (input, output)
  std::vector<std::int64_t> grid;
  std::vector<std::string> dimension_semantics;                 // "parallel" / "arbitrary"
  std::size_t num_index_operands = 0, num_inputs = 0, num_outputs = 0, num_scratch = 0;
  std::vector<BlockSpec> blocks;                                 // inputs, then outputs
  Jaxpr kernel;
  std::vector<std::string> arg_names;   // the kernel function's parameters
  std::source_location kernel_loc;
  /// [output][device][i]; an output with no expected values (the function
  /// does not return it) has an empty vector.
  std::optional<std::vector<std::vector<std::vector<double>>>> expected;
  /// How far an output may be from its expected value: |got - want| <=
  /// atol + rtol * |want| ("expected_tolerance"; 0, 0: exactly equal).
  double expected_rtol = 0, expected_atol = 0;
  bool gpu = false;                     // a Mosaic GPU kernel ("kind": "mosaic_gpu")
  GpuMesh gpu_mesh;                     // gpu: the launch
  std::vector<std::optional<std::size_t>> operand_output;  // gpu: operand k is output n
};

/// The number `j` holds: a JSON number, a boolean (1 or 0), or one of the
/// strings "nan", "inf", "-inf" (JSON has no such numbers; format 3).
/// std::invalid_argument for anything else.
double number(const nlohmann::json& j);

/// The integer `j` holds, as T; std::invalid_argument when it holds anything
/// else (nlohmann's get<T>() would cast a float, undefined past T's range).
template <class T>
T integer(const nlohmann::json& j) {
  if (!j.is_number_integer())
    throw std::invalid_argument("expected an integer, got " + j.dump().substr(0, 40));
  return j.get<T>();
}
/// integer<T>(j[key]), or `def` when `j` has no `key`.
template <class T>
T integer_or(const nlohmann::json& j, const char* key, T def) {
  return j.contains(key) ? integer<T>(j.at(key)) : def;
}
/// The integers of a JSON array, as T.
template <class T>
std::vector<T> integers(const nlohmann::json& j) {
  std::vector<T> out;
  for (const auto& x : j) out.push_back(integer<T>(x));
  return out;
}

/// Reads and validates an exported kernel; UsageError naming the file and
/// what to do for a bad file, a newer format or an unsupported primitive.
Program load_program(const std::string& path);

/// Throws UsageError when a primitive of `j` (or its sub-jaxprs) has no
/// interpreter, naming it and its Python line.
void check_supported(const Jaxpr& j, const std::string& path);

}  // namespace heddle::pallas
