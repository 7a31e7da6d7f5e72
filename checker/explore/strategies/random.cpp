// random: at each step, one enabled agent chosen uniformly (threads and
// async agents alike); data choices uniform too. Seeded, so runs reproduce.
#include <memory>

#include "checker/engine/execution_record.hpp"
#include "checker/explore/run.hpp"
#include "checker/explore/strategies/seeded.hpp"

namespace heddle {
namespace {

class Random final : public Strategy {
 public:
  explicit Random(const RunConfig& c) : seeded_(c) {}

  std::string name() const override { return "random"; }
  bool begin_execution() override { return seeded_.next_execution(); }
  AgentId pick(const Choice& c) override { return c.enabled[seeded_.below(c.enabled.size())]; }
  std::uint32_t choose(std::uint32_t n, const ExecutionRecord&) override {
    return static_cast<std::uint32_t>(seeded_.below(n));
  }
  void end_execution(const ExecutionRecord&) override {}
  bool exhaustive() const override { return false; }
  std::optional<std::uint64_t> seed() const override { return seeded_.seed(); }
  std::vector<std::string> notes() const override { return seeded_.notes("random"); }

 private:
  Seeded seeded_;
};

const bool random_registered = [] {
  register_strategy("random", [](const RunConfig& c) { return std::make_unique<Random>(c); });
  return true;
}();

}  // namespace
}  // namespace heddle
