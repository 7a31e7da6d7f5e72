// Creating agents: unique names, a thread agent (kept, spare or new) for
// spawn, an async agent for issue, and each new agent's clocks.
#include <fmt/format.h>

#include <memory>
#include <string>
#include <string_view>

#include "checker/engine/errors.hpp"
#include "checker/engine/execution.hpp"

namespace heddle {
namespace {
// FNV-1a: agent names are a few bytes, where it beats std::hash.
std::size_t name_hash(std::string_view s) noexcept {
  std::uint64_t h = 14695981039346656037ull;
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  return static_cast<std::size_t>(h);
}
// Thread agents of destroyed executions on this OS thread, for the next
// ones: their agents cost no heap allocation. (A renewed execution keeps
// its own: Execution::kept_threads_.)
thread_local std::vector<std::unique_ptr<ThreadAgent>> t_spare_threads;
}  // namespace

bool Execution::name_taken(std::string_view name, std::size_t hash) const {
  // Compare names only where the hashes agree (a scan of integers).
  for (std::size_t i = 0; i < agents_.size(); ++i)
    if (name_hash_[i] == hash && agents_[i]->name == name) return true;
  return false;
}

std::string Execution::renamed(std::string_view name) const {
  for (int k = 2;; ++k) {
    std::string candidate = fmt::format("{}#{}", name, k);
    if (!name_taken(candidate, name_hash(candidate))) return candidate;
  }
}

std::size_t Execution::claim_name(std::string_view& name, std::string& storage) const {
  // An empty name would read back from a schedule file as a data choice.
  if (name.empty()) throw ModelError("every thread and async agent needs a non-empty name");
  if (agents_.size() >= kMaxAgents)
    throw ModelError(fmt::format("cannot create agent {}: an execution may have at most {} "
                                 "threads and async agents",
                                 name, kMaxAgents));
  const std::size_t hash = name_hash(name);
  if (!name_taken(name, hash)) return hash;
  storage = renamed(name);
  name = storage;
  return name_hash(name);
}

void Execution::adopt(Agent& child) {
  Agent& parent = effect_agent();
  child.clock = parent.clock;
  child.commit = parent.commit;
  child.clock.set(child.id, 1);
  // (-1 also for a thread's prologue before the trace's first event.)
  child.created_by = now_.running == nullptr ? -1 : static_cast<int>(trace_.size()) - 1;
  if (now_.running) now_.running->clock.tick(now_.running->id);
}

AgentId Execution::spawn(std::string_view name, std::function<void()>&& body) {
  const AgentId id{static_cast<std::uint32_t>(agents_.size())};
  std::unique_ptr<ThreadAgent> t = take_repeated(id, name);
  std::size_t hash;
  if (t) {
    hash = name_hash_[index(id)];
    t->reset(id, std::move(body));
  } else {
    std::string storage;  // the name with a "#k" suffix, when it is taken
    hash = claim_name(name, storage);
    t = take_thread(id, name, std::move(body));
  }
  t->execution = this;
  if (!t->fiber) t->fiber = pool_.take_fiber();
  t->fiber->start(&Execution::thread_main, t.get());
  adopt(*t);
  add_agent(std::move(t), hash);
  return id;
}

AgentId Execution::issue(std::string_view name, std::vector<Phase> phases,
                         std::source_location loc) {
  std::string storage;
  const std::size_t hash = claim_name(name, storage);
  setup_names_.differ();  // (async agents are not kept)
  const AgentId id{static_cast<std::uint32_t>(agents_.size())};
  const AgentId issuer = now_.running ? now_.running->id : host_.id;
  auto a = std::make_unique<AsyncAgent>(id, std::string(name), issuer, std::move(phases), loc);
  adopt(*a);
  add_agent(std::move(a), hash);
  return id;
}

void Execution::set_wait_hint(AgentId copy, WaitHint hint) {
  Agent& a = *agents_.at(index(copy));
  if (a.kind != Agent::Kind::async)
    throw std::logic_error("[heddle bug] set_wait_hint on a thread: give it an issued copy");
  static_cast<AsyncAgent&>(a).wait_hint = std::move(hint);
}

void Execution::add_agent(std::unique_ptr<Agent> a, std::size_t hash) {
  // (Kept from earlier executions beyond agents_: overwritten in place.)
  if (const std::size_t i = agents_.size(); i < name_hash_.size())
    name_hash_[i] = hash;
  else
    name_hash_.push_back(hash);
  // A thread has nothing pending until it starts; an async agent's phase
  // may have a condition.
  ready_.push_back(a->kind == Agent::Kind::thread || a->finished ? kIdle : kAsk);
  agents_.push_back(std::move(a));
}

std::unique_ptr<ThreadAgent> Execution::take_repeated(AgentId id, std::string_view name) {
  // Every name so far is the execution before's at its place, and so is
  // `name`: it was free there, so it is free here.
  const std::size_t i = index(id);
  if (!setup_names_.repeats() || i >= kept_threads_.size() || !kept_threads_[i] ||
      !same_name(kept_threads_[i]->name, name))
    return nullptr;
  return std::move(kept_threads_[i]);
}

std::unique_ptr<ThreadAgent> Execution::take_thread(AgentId id, std::string_view name,
                                                    std::function<void()>&& body) {
  setup_names_.differ();
  std::unique_ptr<ThreadAgent> t;
  if (const std::size_t i = index(id); i < kept_threads_.size() && kept_threads_[i]) {
    t = std::move(kept_threads_[i]);
  } else if (!t_spare_threads.empty()) {
    t = std::move(t_spare_threads.back());
    t_spare_threads.pop_back();
  } else {
    return std::make_unique<ThreadAgent>(id, std::string(name), std::move(body));
  }
  t->reset(id, name, std::move(body));
  return t;
}

void Execution::release_kept_threads() noexcept {
  for (auto& t : kept_threads_) {
    if (!t) continue;
    pool_.give_back(std::move(t->fiber));
    t_spare_threads.push_back(std::move(t));
  }
  kept_threads_.clear();
}

}  // namespace heddle
