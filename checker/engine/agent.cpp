#include "checker/engine/agent.hpp"

#include "checker/engine/fiber.hpp"
#include "checker/engine/guarded.hpp"

namespace heddle {

ThreadAgent::ThreadAgent(AgentId id_, std::string name_, std::function<void()> body_)
    : Agent(Kind::thread, id_, std::move(name_)), body(std::move(body_)) {}

ThreadAgent::~ThreadAgent() = default;

void ThreadAgent::reset(AgentId id_, std::string_view name_, std::function<void()>&& body_) {
  name.assign(name_);  // into the recycled agent's storage
  reset(id_, std::move(body_));
}

void ThreadAgent::reset(AgentId id_, std::function<void()>&& body_) {
  id = id_;
  finished = false;
  created_by = -1;
  events = 0;
  body = std::move(body_);
  op.clear();
  has_pending = false;
  started = false;
}

AsyncAgent::AsyncAgent(AgentId id_, std::string name_, AgentId issuer_,
                       std::vector<Phase> phases_, std::source_location loc_)
    : Agent(Kind::async, id_, std::move(name_)),
      issuer(issuer_),
      phases(std::move(phases_)),
      loc(loc_) {
  if (phases.empty()) finished = true;
  load_next();
}

bool AsyncAgent::enabled() const {
  if (finished) return false;
  const auto& p = phases[next];
  return !p.enabled || guarded_call(p.enabled);  // model code: guarded like a step
}

void AsyncAgent::load_next() {
  if (finished) return;
  const auto& p = phases[next];
  op.name = p.name;
  op.object = p.object;
  op.has_object = p.has_object;
  op.loc = loc;
  op.footprint = p.footprint;
}

}  // namespace heddle
