#include "checker/engine/sync.hpp"

namespace heddle {

const VectorClock& CommitClocks::empty_clock() noexcept {
  static const VectorClock empty;
  return empty;
}

CommitClocks::Proxies& CommitClocks::used() {
  if (used_) return *proxies_;
  if (proxies_)
    *proxies_ = Proxies{};  // stale from an earlier use
  else
    proxies_ = std::make_unique<Proxies>();
  used_ = true;
  return *proxies_;
}

void CommitClocks::join_used(const CommitClocks& other) {
  Proxies& mine = used();
  for (std::size_t i = 0; i < mine.by_proxy.size(); ++i) {
    mine.by_proxy[i].join(other.proxies_->by_proxy[i]);
    mine.released[i].join(other.proxies_->released[i]);
  }
}

}  // namespace heddle
