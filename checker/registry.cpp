#include "checker/registry.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>

#include "checker/engine/errors.hpp"
#include "checker/engine/program_name.hpp"

namespace heddle {
namespace {
std::map<std::string, Kernel>& registry() {
  static std::map<std::string, Kernel> r;
  return r;
}

std::vector<FrontEnd>& front_end_registry() {
  static std::vector<FrontEnd> r;
  return r;
}

// Words longer than this get no suggestions (no name is that long).
constexpr std::size_t kMaxSuggestedWord = 1024;

std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j)
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] != b[j - 1])});
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

// A name as an error message shows it: the first 200 bytes of a long one, with its length.
std::string shown_name(const std::string& name) {
  constexpr std::size_t kShown = 200;
  if (name.size() <= kShown) return name;
  return fmt::format("{}... ({} bytes)", name.substr(0, kShown), name.size());
}

std::string suggestion(const std::string& word, const std::vector<std::string>& pool) {
  auto near = closest(word, pool);
  if (near.empty()) return "";
  std::string s = "; did you mean ";
  for (std::size_t i = 0; i < near.size(); ++i) s += (i ? " or " : "") + near[i];
  return s + "?";
}

// The whole string as a decimal long: no blanks, no embedded NUL (found by
// test/fuzz/fuzz_params.cpp), no overflow (strtol saturates it silently).
bool parse_long(const std::string& s, long& out) {
  if (s.empty() || std::isspace(static_cast<unsigned char>(s[0]))) return false;
  char* end = nullptr;
  errno = 0;
  out = std::strtol(s.c_str(), &end, 10);
  return errno != ERANGE && end == s.c_str() + s.size();
}

void validate(const ParamSpec& p, const std::string& v, const std::string& kernel) {
  auto bad = [&](const std::string& want) {
    throw UsageError(fmt::format("kernel {}: parameter {}={} is invalid: expected {}", kernel,
                                 p.name, v, want));
  };
  long n = 0;
  switch (p.type) {
    case ParamSpec::Type::integer:
      if (!parse_long(v, n)) bad("an integer");
      if (p.has_range && (n < p.min || n > p.max)) bad(fmt::format("{}..{}", p.min, p.max));
      break;
    case ParamSpec::Type::boolean:
      if (v != "true" && v != "false") bad("true or false");
      break;
    case ParamSpec::Type::choice:
      if (std::find(p.allowed.begin(), p.allowed.end(), v) == p.allowed.end())
        bad(fmt::format("one of {}", fmt::join(p.allowed, ", ")));
      break;
    case ParamSpec::Type::text: break;
  }
}
}  // namespace

std::vector<std::string> closest(const std::string& word, const std::vector<std::string>& pool) {
  std::vector<std::pair<std::size_t, std::string>> scored;
  // Only names of a typo's length are near: the edit distance is at least
  // the difference in length, and costs the product of the lengths (a 10 MB
  // word took 29 s against the registry, issue 54.8).
  if (word.size() > kMaxSuggestedWord) return {};
  for (const auto& p : pool) {
    std::size_t d = edit_distance(word, p);
    bool contains = p.find(word) != std::string::npos || word.find(p) != std::string::npos;
    if (d <= std::max<std::size_t>(2, word.size() / 3) || contains) scored.emplace_back(d, p);
  }
  std::sort(scored.begin(), scored.end());
  std::vector<std::string> out;
  for (std::size_t i = 0; i < scored.size() && i < 3; ++i) out.push_back(scored[i].second);
  return out;
}

long Params::get_int(const std::string& name) const {
  long n = 0;
  if (!parse_long(get(name), n))
    throw ModelError(fmt::format("parameter {}={} is not an integer: the model reads a flag or "
                                 "choice as a number?",
                                 name, get(name)));
  return n;
}
bool Params::get_bool(const std::string& name) const { return get(name) == "true"; }

const std::string& Params::get(const std::string& name) const {
  auto it = values_.find(name);
  if (it == values_.end())
    throw ModelError(fmt::format("the model reads parameter {}, which the kernel does not declare",
                                 name));
  return it->second;
}

Params Kernel::resolve(const std::map<std::string, std::string>& given) const {
  std::map<std::string, std::string> values;
  std::vector<std::string> names;
  for (const auto& p : params) {
    values[p.name] = p.default_value;
    names.push_back(p.name);
  }
  for (const auto& [k, v] : given) {
    const std::string& key = k;  // clang 14 (the fuzz build) cannot capture a binding
    auto it = std::find_if(params.begin(), params.end(), [&](auto& p) { return p.name == key; });
    if (it == params.end())
      throw UsageError(fmt::format("kernel {} has no parameter {}{}", name, k,
                                   names.empty() ? std::string("; it takes no parameters")
                                                 : suggestion(k, names)));
    validate(*it, v, name);
    values[k] = v;
  }
  return Params(std::move(values));
}

KernelBuilder::KernelBuilder(std::string name, std::string description,
                             std::source_location loc) {
  k_.name = std::move(name);
  k_.description = std::move(description);
  k_.at = where(loc);
}

KernelBuilder& KernelBuilder::exhaustive() {
  if (k_.presets.empty())
    throw std::logic_error(fmt::format("kernel {}: exhaustive() follows the preset it marks: "
                                       "write .preset(...).exhaustive()",
                                       k_.name));
  k_.presets.back().exhaustive = true;
  return *this;
}

KernelBuilder& KernelBuilder::naming(std::vector<std::string> names) {
  if (k_.presets.empty() || k_.presets.back().expect == Verdict::ok)
    throw std::logic_error(fmt::format("kernel {}: naming() follows a preset that expects a bug: "
                                       "write .preset(..., Verdict::race).naming({{...}})",
                                       k_.name));
  k_.presets.back().bug_names = std::move(names);
  return *this;
}

const Preset& Kernel::find_preset(const std::string& wanted) const {
  std::vector<std::string> names;
  for (const auto& p : presets) {
    if (p.name == wanted) return p;
    names.push_back(p.name);
  }
  if (names.empty())
    throw UsageError(fmt::format("kernel {} declares no presets; give --param NAME=VALUE instead",
                                 name));
  std::string near = suggestion(wanted, names);
  throw UsageError(fmt::format("kernel {} has no preset {}{}; its presets: {}", name, wanted,
                               near, fmt::join(names, ", ")));
}

KernelBuilder& KernelBuilder::param(std::string name, long def, std::string help, long min,
                                    long max) {
  ParamSpec p{std::move(name), ParamSpec::Type::integer, std::to_string(def), {}, min, max,
              min != 0 || max != 0, std::move(help)};
  k_.params.push_back(std::move(p));
  return *this;
}

KernelBuilder& KernelBuilder::flag(std::string name, bool def, std::string help) {
  k_.params.push_back(ParamSpec{std::move(name), ParamSpec::Type::boolean, def ? "true" : "false",
                                {"true", "false"}, 0, 0, false, std::move(help)});
  return *this;
}

KernelBuilder& KernelBuilder::choice(std::string name, std::string def,
                                     std::vector<std::string> allowed, std::string help) {
  k_.params.push_back(ParamSpec{std::move(name), ParamSpec::Type::choice, std::move(def),
                                std::move(allowed), 0, 0, false, std::move(help)});
  return *this;
}

KernelBuilder& KernelBuilder::preset(std::string name, std::map<std::string, std::string> params,
                                     Verdict expect) {
  k_.presets.push_back(Preset{std::move(name), std::move(params), expect});
  return *this;
}

Registration KernelBuilder::body(std::function<void(const Params&)> setup) {
  k_.setup = std::move(setup);
  registry()[k_.name] = k_;
  return Registration{k_.name};
}

const std::map<std::string, Kernel>& kernels() { return registry(); }

Registration front_end(FrontEnd fe) {
  std::string name = fe.name;
  front_end_registry().push_back(std::move(fe));
  return Registration{name};
}

const std::vector<FrontEnd>& front_ends() { return front_end_registry(); }

const Kernel& build_kernel(const FrontEnd& fe, const std::map<std::string, std::string>& values) {
  Kernel k = fe.build(values);
  std::string name = k.name;
  registry()[name] = std::move(k);
  return registry()[name];
}

const Kernel& find_kernel(const std::string& name,
                          const std::map<std::string, std::string>& values) {
  for (const FrontEnd& fe : front_ends())
    if (name.rfind(fe.name + "/", 0) == 0 && registry().count(name) == 0)
      return build_kernel(fe, values);
  return find_kernel(name);
}

std::map<std::string, KernelLoader>& loader_table() {
  static std::map<std::string, KernelLoader> t;
  return t;
}

Registration register_loader(KernelLoader loader) {
  std::string kind = loader.kind;
  loader_table()[kind] = std::move(loader);
  return Registration{kind};
}

const std::map<std::string, KernelLoader>& loaders() { return loader_table(); }

const Kernel& find_kernel(const std::string& name) {
  auto it = registry().find(name);
  if (it != registry().end()) return it->second;
  auto colon = name.find(':');
  if (colon != std::string::npos) {
    auto loader = loader_table().find(name.substr(0, colon));
    if (loader != loader_table().end()) {
      Kernel k = loader->second.load(name.substr(colon + 1));
      k.name = name;
      return registry()[name] = std::move(k);
    }
  }
  std::vector<std::string> names;
  for (auto& [n, k] : registry()) names.push_back(n);
  throw UsageError(fmt::format("unknown kernel {}{} ('{} list' shows them all)",
                               shown_name(name), suggestion(name, names), program_name()));
}

}  // namespace heddle
