// The setup check: a model's setup must build the same objects and agents
// (by name) whenever it runs with the same parameters and data choices.
#include <fmt/format.h>

#include <atomic>
#include <cstring>
#include <map>

#include "checker/engine/execution.hpp"

namespace heddle {
namespace {
// What the setup of a model (name and parameters) built, per setup choices:
// the names of its objects and agents, each followed by a NUL. Comparing
// them whole is a memcmp; hashing them byte by byte cost more.
struct SetupSeen {
  std::string names;
  std::string text;
};
using SeenKey = std::pair<std::uint64_t, std::vector<std::uint32_t>>;
using SetupMap = std::map<SeenKey, SetupSeen>;
thread_local SetupMap t_setups;
// The entry the last check on this OS thread used (end: none): most
// executions repeat the setup before them, checked without a lookup.
thread_local SetupMap::iterator t_last = t_setups.end();
// The names of the setup being checked (reused: no allocation per execution).
thread_local std::string t_names;

// Which t_setups a check used: a number no other OS thread's record, nor
// this one's before it was last emptied, has had (0: none yet).
std::uint64_t new_generation() {
  static std::atomic<std::uint64_t> last{0};
  return last.fetch_add(1) + 1;
}
thread_local std::uint64_t t_generation = new_generation();

// True when the NUL-terminated name at `p` (before `end`) is `n`; moves
// `p` past it.
bool name_matches(const char*& p, const char* end, const std::string& n) {
  const std::size_t len = n.size();
  if (static_cast<std::size_t>(end - p) <= len || p[len] != '\0' ||
      std::memcmp(p, n.data(), len) != 0)
    return false;
  p += len + 1;
  return true;
}

// True when `values` are the values of `choices`, in order.
bool same_choices(const std::vector<std::uint32_t>& values, const std::vector<DataChoice>& choices) {
  if (values.size() != choices.size()) return false;
  for (std::size_t k = 0; k < values.size(); ++k)
    if (values[k] != choices[k].value) return false;
  return true;
}

// Sets `values` to the values of `choices` (no allocation when there are none).
void set_choice_values(std::vector<std::uint32_t>& values, const std::vector<DataChoice>& choices) {
  values.clear();
  for (const auto& c : choices) values.push_back(c.value);
}
}  // namespace

bool Execution::same_setup_as_last(std::uint64_t model) const {
  const SetupMap::iterator last = t_last;  // (one TLS access each)
  if (last == t_setups.end() || last->first.first != model ||
      !same_choices(last->first.second, choices_))
    return false;
  const std::string& names = last->second.names;
  const char* p = names.data();
  const char* end = p + names.size();
  for (std::size_t i = 0; i < setup_names_.size(); ++i)
    if (!name_matches(p, end, setup_names_[i])) return false;
  if (p == end || *p++ != '\0') return false;  // objects end here
  for (const auto& a : agents_)
    if (!name_matches(p, end, a->name)) return false;
  return p == end;
}

bool Execution::repeats_accepted_setup(std::uint64_t model) const {
  // Every object and agent has the execution before's name at its place
  // (SetupNames::repeats), as many of each, and the check accepted that
  // setup under the same key, against this OS thread's record as it is.
  const SetupNames::Accepted& a = setup_names_.accepted;
  if (!a.last || !setup_names_.repeats() || a.model != model || a.generation != t_generation ||
      a.objects != setup_names_.size() || a.agents != agents_.size())
    return false;
  return same_choices(a.choices, choices_);
}

void Execution::accept_setup(std::uint64_t model) {
  SetupNames::Accepted& a = setup_names_.accepted;
  a.now = true;
  a.model = model;
  a.generation = t_generation;
  a.objects = setup_names_.size();
  a.agents = agents_.size();
  set_choice_values(a.choices, choices_);
}

void Execution::check_setup_determinism(std::uint64_t model) {
  // Setup must depend on the parameters and its data choices only: what it
  // built (objects, agents) is compared with earlier executions' setups.
  if (repeats_accepted_setup(model)) {
    setup_names_.accepted.now = true;
    return;
  }
  if (same_setup_as_last(model)) {
    accept_setup(model);
    return;
  }
  std::vector<std::uint32_t> choices;
  set_choice_values(choices, choices_);
  std::string& names = t_names;
  names.clear();
  for (std::size_t i = 0; i < setup_names_.size(); ++i)
    names.append(setup_names_[i].data(), setup_names_[i].size() + 1);
  names.push_back('\0');  // objects end here, agents follow
  for (const auto& a : agents_) names.append(a->name.data(), a->name.size() + 1);
  auto text = [&] {
    const bool objects = setup_names_.size() > 0;
    return fmt::format("{} objects{}{} and {} agents{}{}", setup_names_.size(),
                       objects ? ", the last " : "", objects ? setup_names_.back() : "",
                       agents_.size(), agents_.empty() ? "" : ", the last ",
                       agents_.empty() ? "" : agents_.back()->name);
  };
  if (t_setups.size() > 4096) {
    t_setups.clear();
    t_generation = new_generation();  // what was accepted against it is gone
  }
  auto [it, fresh] = t_setups.try_emplace({model, std::move(choices)});
  t_last = it;
  if (fresh) {
    it->second.names = names;
    it->second.text = text();
    accept_setup(model);
    return;
  }
  if (it->second.names == names) {
    accept_setup(model);
    return;
  }
  fail(Verdict::model_error, "kernel setup is not deterministic",
       {fmt::format("this execution's setup built {}; an earlier one, with the same parameters "
                    "and choices, built {}",
                    text(), it->second.text),
        "setup must depend only on the parameters and heddle::choose: static state, time or "
        "rand() in the kernel body?"});
}

}  // namespace heddle
