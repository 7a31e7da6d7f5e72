// Strong identifiers shared by the whole engine.
#pragma once
#include <compare>
#include <cstdint>

namespace heddle {

/// Index of an agent (thread or async agent) inside one execution.
enum class AgentId : std::uint32_t {};

/// Index of a sync object or memory region inside one execution.
enum class ObjectId : std::uint32_t {};

/// Returns the raw index of a strong id.
template <class Id>
constexpr std::uint32_t index(Id id) noexcept { return static_cast<std::uint32_t>(id); }

/// Which memory proxy an access goes through (PTX: generic, async, tensormap).
/// Every non-generic proxy sees earlier generic accesses only through the
/// accessing agent's commit clock (see Region::access).
enum class Proxy : std::uint8_t { generic, async, tensormap };

/// Lowercase name of a proxy as printed in reports ("generic", "async", "tensormap").
constexpr const char* proxy_name(Proxy p) noexcept {
  return p == Proxy::generic ? "generic" : p == Proxy::async ? "async" : "tensormap";
}

/// A point in an agent's history: the agent and its own clock component then.
struct Epoch {
  AgentId agent{};
  std::uint32_t time = 0;
  friend constexpr auto operator<=>(const Epoch&, const Epoch&) = default;
};

}  // namespace heddle
