// Brute-force execution counts for deterministic TPU models. When every
// wait of a model can be satisfied by exactly one event, dfs explores each
// order of its steps that respects program order and the waits once: the
// number of executions is the number of linear extensions of that partial
// order, counted here by dynamic programming over down-sets.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace heddle::test {

/// A partial order over named steps, built edge by edge.
class Poset {
 public:
  /// Declares that step `a` happens before step `b` (both added if new).
  void before(const std::string& a, const std::string& b) { preds_[id(b)] |= bit(id(a)); }
  /// Declares a chain a0 < a1 < ... (program order of one agent).
  void chain(const std::vector<std::string>& steps) {
    for (const auto& s : steps) id(s);
    for (std::size_t i = 1; i < steps.size(); ++i) before(steps[i - 1], steps[i]);
  }
  /// Number of linear extensions (orders of all steps respecting the edges).
  std::uint64_t linear_extensions() {
    memo_.clear();
    return count(0);
  }

 private:
  static std::uint64_t bit(std::size_t i) { return std::uint64_t{1} << i; }
  std::size_t id(const std::string& s) {
    auto [it, fresh] = ids_.emplace(s, ids_.size());
    if (fresh) preds_.push_back(0);
    return it->second;
  }
  std::uint64_t count(std::uint64_t done) {
    if (done == bit(preds_.size()) - 1) return 1;
    if (auto it = memo_.find(done); it != memo_.end()) return it->second;
    std::uint64_t total = 0;
    for (std::size_t i = 0; i < preds_.size(); ++i)
      if (!(done & bit(i)) && (preds_[i] & ~done) == 0) total += count(done | bit(i));
    memo_[done] = total;
    return total;
  }
  std::map<std::string, std::size_t> ids_;
  std::vector<std::uint64_t> preds_;
  std::unordered_map<std::uint64_t, std::uint64_t> memo_;
};

inline std::string at(long d, const char* what) { return "dev" + std::to_string(d) + "." + what; }

/// Adds one remote copy started by `start`: send after start, receive after
/// send; the sender's wait_send after the send, the target's wait_recv after the receive.
inline void remote_copy(Poset& p, const std::string& name, const std::string& start,
                        const std::string& wait_send, const std::string& wait_recv) {
  p.chain({start, name + ".send", name + ".recv"});
  p.before(name + ".send", wait_send);
  p.before(name + ".recv", wait_recv);
}

/// pallas_tpu/right_permute: start, wait_send, wait_recv per device.
inline std::uint64_t right_permute_executions(long n) {
  Poset p;
  for (long d = 0; d < n; ++d) {
    p.chain({at(d, "start"), at(d, "wait_send"), at(d, "wait_recv")});
    remote_copy(p, at(d, "rdma"), at(d, "start"), at(d, "wait_send"),
                at((d + 1) % n, "wait_recv"));
  }
  return p.linear_extensions();
}

/// pallas_tpu/all_gather: a local copy, then n-1 grid steps of right_permute
/// (recv semaphore per step, so step s's wait_recv needs step s's copy).
inline std::uint64_t all_gather_executions(long n) {
  Poset p;
  for (long d = 0; d < n; ++d) {
    std::vector<std::string> prog{at(d, "local_start"), at(d, "local_wait")};
    for (long s = 0; s + 1 < n; ++s)
      for (const char* op : {"start", "wait_send", "wait_recv"})
        prog.push_back(at(d, op) + std::to_string(s));
    p.chain(prog);
    p.chain({at(d, "local_start"), at(d, "local_copy"), at(d, "local_wait")});
    for (long s = 0; s + 1 < n; ++s) {
      auto k = std::to_string(s);
      remote_copy(p, at(d, "rdma") + k, at(d, "start") + k, at(d, "wait_send") + k,
                  at((d + 1) % n, "wait_recv") + k);
    }
  }
  return p.linear_extensions();
}

/// pallas_tpu/ring_reuse_recv_sem with steps <= slots (no capacity waits):
/// per step start, wait_recv, wait_send; eager DMAs complete in their start.
inline std::uint64_t ring_executions(long n, long steps, bool eager) {
  Poset p;
  for (long d = 0; d < n; ++d) {
    std::vector<std::string> prog;
    for (long s = 0; s < steps; ++s)
      for (const char* op : {"start", "wait_recv", "wait_send"})
        prog.push_back(at(d, op) + std::to_string(s));
    p.chain(prog);
    for (long s = 0; s < steps; ++s) {
      auto k = std::to_string(s);
      if (eager)
        p.before(at(d, "start") + k, at((d + 1) % n, "wait_recv") + k);
      else
        remote_copy(p, at(d, "rdma") + k, at(d, "start") + k, at(d, "wait_send") + k,
                    at((d + 1) % n, "wait_recv") + k);
    }
  }
  return p.linear_extensions();
}

/// pallas_tpu/double_buffered_copy: start 0; per block i, start i+1, wait i.
inline std::uint64_t double_buffer_executions(long blocks) {
  Poset p;
  std::vector<std::string> prog{"start0"};
  for (long i = 0; i < blocks; ++i) {
    if (i + 1 < blocks) prog.push_back("start" + std::to_string(i + 1));
    prog.push_back("wait" + std::to_string(i));
  }
  p.chain(prog);
  for (long i = 0; i < blocks; ++i) {
    auto k = std::to_string(i);
    p.chain({"start" + k, "copy" + k, "wait" + k});
  }
  return p.linear_extensions();
}

}  // namespace heddle::test
