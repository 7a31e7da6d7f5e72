// Wakeup trees (Abdulla et al., JACM 2017, Sec. 6.1), stored as one forest
// whose leftmost branch is the execution being explored.
#pragma once
#include <cstdint>
#include <deque>
#include <memory>
#include <vector>

#include "checker/explore/dpor/event.hpp"

namespace heddle::dpor {

/// Each distinct event description stored once and named by a 32-bit id.
/// Deterministic models run the same few operations in every execution, so
/// the table grows with the model's distinct events (agents x events per
/// agent x footprint variants), not with the number of executions; wakeup
/// nodes then cost 24 bytes instead of a full EventInfo.
class EventTable {
 public:
  /// The id of `e`, adding it when new.
  std::uint32_t intern(const EventInfo& e);
  /// The event with id `id` (references stay valid as the table grows).
  const EventInfo& operator[](std::uint32_t id) const { return all_[id]; }

 private:
  std::deque<EventInfo> all_;
  // ids_[agent][agent_event]: the ids of that operation's variants (a
  // failed and a successful CAS, say); usually one or two.
  std::vector<std::vector<std::vector<std::uint32_t>>> ids_;
};

/// An ordered tree of events in an arena. Node 0 is the root (the empty
/// prefix). Children are ordered oldest first; removed nodes are recycled,
/// so memory follows the live tree, not the number of executions. The arena
/// grows in fixed chunks: nodes never move, and growing never holds two
/// copies of the forest at once (as a doubling vector would).
class WakeupForest {
 public:
  static constexpr std::int32_t kNone = -1;
  WakeupForest();

  /// Appends a copy of `ev` as the last child of `parent`; returns the new node.
  std::int32_t add_child(std::int32_t parent, const EventInfo& ev);
  /// Unlinks `node` and its whole subtree from its parent and frees them.
  void remove(std::int32_t node);
  /// Clears everything but the root.
  void clear();

  /// The event of node `n` (valid until the node changes or is removed).
  const EventInfo& event(std::int32_t n) const { return table_[node(n).ev]; }
  /// The interned id of node `n`'s event (ids stay valid for the forest's life).
  std::uint32_t event_id(std::int32_t n) const { return node(n).ev; }
  /// The event with interned id `id`.
  const EventInfo& event_by_id(std::uint32_t id) const { return table_[id]; }
  /// Replaces the event of node `n`.
  void set_event(std::int32_t n, const EventInfo& ev) { node(n).ev = table_.intern(ev); }
  std::int32_t first_child(std::int32_t n) const { return node(n).first_child; }
  std::int32_t next_sibling(std::int32_t n) const { return node(n).next; }
  std::int32_t parent(std::int32_t n) const { return node(n).parent; }
  /// Live nodes (for memory statistics).
  std::size_t live() const noexcept { return live_; }

 private:
  // 16 bytes. No back or last-child links: a node has at most one child per
  // agent, so walking the siblings to append or unlink is short.
  struct Node {
    std::uint32_t ev = 0;  // id in table_
    std::int32_t parent = kNone, first_child = kNone, next = kNone;
  };
  static constexpr int kChunkBits = 10;  // 1024 nodes per chunk
  static constexpr std::int32_t kChunkMask = (1 << kChunkBits) - 1;
  Node& node(std::int32_t n) { return chunks_[n >> kChunkBits][n & kChunkMask]; }
  const Node& node(std::int32_t n) const { return chunks_[n >> kChunkBits][n & kChunkMask]; }
  std::int32_t allocate();
  void free_subtree(std::int32_t n);

  EventTable table_;
  std::vector<std::unique_ptr<Node[]>> chunks_;
  std::int32_t used_ = 0;  // nodes [0, used_) have been handed out at least once
  std::vector<std::int32_t> free_;
  std::size_t live_ = 0;
};

/// Inserts `v` below `node` (JACM 2017, Sec. 6.1, insert[E](v, wut)):
/// descends into the first child whose agent is a weak initial of what is
/// left of v, removing that agent's event from v; stops when it reaches a
/// leaf or consumes v (an equivalent sequence is already there), and
/// otherwise appends the rest of v as a new rightmost branch.
/// Returns true when it added nodes. `v` points at events the caller keeps
/// alive; it is consumed (the events are copied into new nodes).
bool insert(WakeupForest& f, std::int32_t node, std::vector<const EventInfo*>& v);

}  // namespace heddle::dpor
