#include "checker/explore/dpor/wakeup_tree.hpp"

#include <algorithm>

namespace heddle::dpor {

std::uint32_t EventTable::intern(const EventInfo& e) {
  const std::size_t a = index(e.agent);
  if (a >= ids_.size()) ids_.resize(a + 1);
  auto& per_agent = ids_[a];
  if (e.agent_event >= per_agent.size()) per_agent.resize(e.agent_event + 1);
  auto& variants = per_agent[e.agent_event];
  for (std::uint32_t id : variants)
    if (same_event(all_[id], e)) return id;
  const auto id = static_cast<std::uint32_t>(all_.size());
  all_.push_back(e);
  variants.push_back(id);
  return id;
}

WakeupForest::WakeupForest() { clear(); }

void WakeupForest::clear() {
  free_.clear();
  used_ = 0;
  live_ = 0;
  allocate();  // the root
}

std::int32_t WakeupForest::allocate() {
  std::int32_t n;
  if (!free_.empty()) {
    n = free_.back();
    free_.pop_back();
  } else {
    n = used_++;
    if (static_cast<std::size_t>(n >> kChunkBits) == chunks_.size())
      chunks_.push_back(std::make_unique<Node[]>(std::size_t{1} << kChunkBits));
  }
  Node& node = this->node(n);
  node.parent = node.first_child = node.next = kNone;
  node.ev = 0;
  ++live_;
  return n;
}

std::int32_t WakeupForest::add_child(std::int32_t parent, const EventInfo& ev) {
  const std::int32_t n = allocate();
  Node& node = this->node(n);
  node.ev = table_.intern(ev);
  node.parent = parent;
  std::int32_t* link = &this->node(parent).first_child;
  while (*link != kNone) link = &this->node(*link).next;
  *link = n;
  return n;
}

void WakeupForest::free_subtree(std::int32_t n) {
  for (std::int32_t c = node(n).first_child; c != kNone;) {
    std::int32_t next = node(c).next;
    free_subtree(c);
    c = next;
  }
  free_.push_back(n);
  --live_;
}

void WakeupForest::remove(std::int32_t n) {
  std::int32_t* link = &node(node(n).parent).first_child;
  while (*link != n) link = &node(*link).next;
  *link = node(n).next;
  free_subtree(n);
}

bool insert(WakeupForest& f, std::int32_t node, std::vector<const EventInfo*>& v) {
  for (bool top = true;; top = false) {
    if (v.empty()) return false;
    std::int32_t c = f.first_child(node);
    if (c == WakeupForest::kNone) {
      if (!top) return false;  // a leaf w with w ⊑ v: v is covered
      break;
    }
    for (; c != WakeupForest::kNone; c = f.next_sibling(c))
      if (weak_initial(v, f.event(c))) break;
    if (c == WakeupForest::kNone) break;
    const AgentId a = f.event(c).agent;
    auto it = std::find_if(v.begin(), v.end(), [a](const EventInfo* e) { return e->agent == a; });
    if (it != v.end()) v.erase(it);
    node = c;
  }
  for (const EventInfo* e : v) node = f.add_child(node, *e);
  return true;
}

}  // namespace heddle::dpor
