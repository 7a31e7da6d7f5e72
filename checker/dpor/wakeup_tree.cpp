#include "checker/dpor/wakeup_tree.hpp"

namespace heddle::dpor {

WakeupForest::WakeupForest() { clear(); }

void WakeupForest::clear() {
  nodes_.clear();
  free_.clear();
  nodes_.push_back(Node{});
  live_ = 1;
}

std::int32_t WakeupForest::add_child(std::int32_t parent, EventInfo ev) {
  std::int32_t n;
  if (!free_.empty()) {
    n = free_.back();
    free_.pop_back();
    nodes_[n] = Node{};
  } else {
    n = static_cast<std::int32_t>(nodes_.size());
    nodes_.push_back(Node{});
  }
  ++live_;
  Node& node = nodes_[n];
  node.ev = std::move(ev);
  node.parent = parent;
  Node& p = nodes_[parent];
  node.prev = p.last_child;
  if (p.last_child != kNone)
    nodes_[p.last_child].next = n;
  else
    p.first_child = n;
  p.last_child = n;
  return n;
}

void WakeupForest::free_subtree(std::int32_t n) {
  for (std::int32_t c = nodes_[n].first_child; c != kNone;) {
    std::int32_t next = nodes_[c].next;
    free_subtree(c);
    c = next;
  }
  free_.push_back(n);
  --live_;
}

void WakeupForest::remove(std::int32_t n) {
  Node& node = nodes_[n];
  Node& p = nodes_[node.parent];
  if (node.prev != kNone)
    nodes_[node.prev].next = node.next;
  else
    p.first_child = node.next;
  if (node.next != kNone)
    nodes_[node.next].prev = node.prev;
  else
    p.last_child = node.prev;
  free_subtree(n);
}

bool insert(WakeupForest& f, std::int32_t node, std::vector<EventInfo> v) {
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
    for (auto it = v.begin(); it != v.end(); ++it)
      if (it->agent == a) {
        v.erase(it);
        break;
      }
    node = c;
  }
  for (auto& e : v) node = f.add_child(node, std::move(e));
  return true;
}

}  // namespace heddle::dpor
