// dfs: every interleaving of visible operations, with no reduction at all.
// It is the oracle that the reducing strategies are tested against.
#include <fmt/format.h>

#include <vector>

#include "checker/engine/errors.hpp"
#include "checker/engine/execution_record.hpp"
#include "checker/explore/run.hpp"

namespace heddle {
namespace {

// Out of line and cold: formatting in next() itself would give every pick
// the frame (saved registers) of a call to fmt.
[[noreturn, gnu::cold, gnu::noinline]] void throw_not_deterministic(std::size_t decision,
                                                                  std::uint32_t before,
                                                                  std::uint32_t now) {
  throw ModelError(fmt::format(
      "the model is not deterministic: decision {} offered {} options in an earlier "
      "execution and {} now (does it read a clock, a random source or global state?)",
      decision, before, now));
}

class Dfs final : public Strategy {
 public:
  std::string name() const override { return "dfs"; }

  bool begin_execution() override {
    depth_ = 0;
    return !done_;
  }

  AgentId pick(const Choice& c) override {
    return c.enabled[next(static_cast<std::uint32_t>(c.enabled.size()))];
  }

  std::uint32_t choose(std::uint32_t n, const ExecutionRecord&) override { return next(n); }

  void end_execution(const ExecutionRecord&) override {
    stack_.resize(depth_);
    while (!stack_.empty() && stack_.back().choice + 1 == stack_.back().count) stack_.pop_back();
    if (stack_.empty())
      done_ = true;
    else
      ++stack_.back().choice;
  }

  bool exhaustive() const override { return done_; }

 private:
  // Invariant: stack_[i] is the branch taken at decision i of the current
  // execution; choices below `choice` have been explored already.
  struct Frame {
    std::uint32_t choice = 0;
    std::uint32_t count = 0;
  };

  std::uint32_t next(std::uint32_t count) {
    if (depth_ < stack_.size()) {
      if (stack_[depth_].count != count)
        throw_not_deterministic(depth_ + 1, stack_[depth_].count, count);
      return stack_[depth_++].choice;
    }
    return descend(count);
  }
  /// next() at a new decision: out of line, so that the vector's growth
  /// gives the replayed decisions (most of them) no saved registers.
  [[gnu::noinline]] std::uint32_t descend(std::uint32_t count) {
    stack_.push_back(Frame{0, count});
    ++depth_;
    return 0;
  }

  std::vector<Frame> stack_;
  std::size_t depth_ = 0;
  bool done_ = false;
};

const bool dfs_registered = [] {
  register_strategy("dfs", [](const RunConfig&) { return std::make_unique<Dfs>(); });
  return true;
}();

}  // namespace
}  // namespace heddle
