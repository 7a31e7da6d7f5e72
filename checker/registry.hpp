// The kernel registry: named kernel models with typed parameters.
#pragma once
#include <functional>
#include <map>
#include <optional>
#include <source_location>
#include <string>
#include <vector>

#include "checker/engine/bug.hpp"

namespace heddle {

/// One declared parameter of a kernel.
struct ParamSpec {
  enum class Type { integer, boolean, choice, text };  // text: any string (front ends)
  std::string name;
  Type type = Type::integer;
  std::string default_value;
  std::vector<std::string> allowed;  // choice values; for integers, optional "min".."max"
  long min = 0, max = 0;             // integer range (inclusive) when has_range
  bool has_range = false;
  std::string help;
};

/// The parameter values of one run, validated against the kernel's specs.
class Params {
 public:
  Params() = default;
  explicit Params(std::map<std::string, std::string> values) : values_(std::move(values)) {}
  long get_int(const std::string& name) const;
  bool get_bool(const std::string& name) const;
  const std::string& get(const std::string& name) const;
  const std::map<std::string, std::string>& values() const noexcept { return values_; }

 private:
  std::map<std::string, std::string> values_;
};

/// A named parameter preset that the CI job runs, with its expected verdict.
struct Preset {
  std::string name;
  std::map<std::string, std::string> params;
  Verdict expect = Verdict::ok;  // a documented buggy variant expects its bug
  bool exhaustive = false;       // CI fails it when a budget stops it before every execution
  /// What the expected bug must name (each: an object, or a source site
  /// "file.cpp:LINE"); a different bug of the same kind fails CI.
  std::vector<std::string> bug_names = {};
};

/// A registered kernel model.
struct Kernel {
  std::string name;
  std::string description;
  std::vector<ParamSpec> params;
  std::vector<Preset> presets;
  std::function<void(const Params&)> setup;  // builds one execution's model
  std::string at;                            // file:line where the kernel was declared

  /// Fills in defaults and validates `given`; throws UsageError with a
  /// suggestion for unknown names and a list for bad values.
  Params resolve(const std::map<std::string, std::string>& given) const;
  /// The preset named `name`; throws UsageError listing the presets there are.
  const Preset& find_preset(const std::string& name) const;
};

/// Proof that a kernel was registered; kernel files keep one per kernel at
/// namespace scope: `const auto k = heddle::kernel(...).body(...);`
struct Registration {
  std::string name;
};

/// Builder used by kernel files: `heddle::kernel("name", "what").param(...).body(...)`.
class KernelBuilder {
 public:
  KernelBuilder(std::string name, std::string description, std::source_location loc);
  KernelBuilder& param(std::string name, long def, std::string help, long min = 0, long max = 0);
  KernelBuilder& flag(std::string name, bool def, std::string help);
  KernelBuilder& choice(std::string name, std::string def, std::vector<std::string> allowed,
                        std::string help);
  KernelBuilder& preset(std::string name, std::map<std::string, std::string> params,
                        Verdict expect = Verdict::ok);
  /// The preset declared last must be explored exhaustively: the CI job
  /// fails it when a budget stops it (`.preset(...).exhaustive()`).
  KernelBuilder& exhaustive();
  /// The bug the preset declared last expects must name each of `names`
  /// (an object, or a source site "file.cpp:LINE"): `.preset(...).naming({"desc"})`.
  KernelBuilder& naming(std::vector<std::string> names);
  /// Sets the model and registers the kernel.
  Registration body(std::function<void(const Params&)> setup);

 private:
  Kernel k_;
};

/// Starts declaring a kernel (registered when body() is called).
inline KernelBuilder kernel(std::string name, std::string description,
                            std::source_location loc = std::source_location::current()) {
  return KernelBuilder(std::move(name), std::move(description), loc);
}

/// A front end: builds a kernel from a file (e.g. a Pallas kernel exported
/// from JAX). Registered by models/ so the CLI can run `--KIND FILE`.
struct KernelLoader {
  std::string kind;  // "pallas": the CLI's --pallas FILE, kernel name "pallas:FILE"
  std::string help;
  std::function<Kernel(const std::string& path)> load;  // UsageError for a bad file
};

/// Registers a front end (at static initialization, from models/).
Registration register_loader(KernelLoader loader);
/// The registered front ends, by kind.
const std::map<std::string, KernelLoader>& loaders();

/// All registered kernels, by name.
const std::map<std::string, Kernel>& kernels();
/// Looks a kernel up; "KIND:PATH" loads PATH through the KIND front end (once).
/// Throws UsageError suggesting the closest names.
const Kernel& find_kernel(const std::string& name);
/// A command-line option of a front end: `--ptx FILE` sets parameter "file".
struct FrontEndOption {
  std::string flag;        // "--ptx"
  std::string param;       // the kernel parameter it sets
  std::string help;
  bool repeatable = false; // values joined with spaces (--arg a=... --arg b=...)
  bool is_switch = false;  // a switch taking no value: given, it sets the parameter to "true"
};

/// A front end turns a file named on the command line (PTX from nvcc) into
/// a kernel named "<name>/<entry>" whose parameters are the option values;
/// `build` parses and decodes once, the kernel's setup interprets.
struct FrontEnd {
  std::string name;                    // "ptx": its kernels are "ptx/..."
  std::vector<FrontEndOption> options; // the first one selects the front end
  std::function<Kernel(const std::map<std::string, std::string>& values)> build;
};

/// Registers a front end (from a models/ file at static initialization).
Registration front_end(FrontEnd fe);
/// The registered front ends.
const std::vector<FrontEnd>& front_ends();
/// Builds a front end's kernel from parameter values and registers it
/// (replacing an earlier one of the same name); UsageError on bad input.
const Kernel& build_kernel(const FrontEnd& fe, const std::map<std::string, std::string>& values);
/// find_kernel; a front end's kernel ("ptx/...") not built yet is built from `values`.
const Kernel& find_kernel(const std::string& name,
                          const std::map<std::string, std::string>& values);

/// The closest candidates to `word` by edit distance (for suggestions).
std::vector<std::string> closest(const std::string& word, const std::vector<std::string>& pool);

}  // namespace heddle

