#include "models/tpu/memory.hpp"

#include <fmt/format.h>

namespace heddle::tpu {

const char* space_name(Space s) {
  switch (s) {
    case Space::hbm: return "hbm";
    case Space::vmem: return "vmem";
    case Space::smem: return "smem";
  }
  return "?";
}

Allocation& allocate(Mesh& mesh, std::string name, Space space, std::size_t elem,
                     std::size_t count) {
  auto& a = heddle::make<Allocation>();
  a.name = name;
  a.space = space;
  a.count = count;
  // Region names say where the instance lives: "dev1.out", "dev1.core0.buf".
  for (std::uint32_t d = 0; d < mesh.devices(); ++d) {
    if (space == Space::hbm) {
      a.instances.push_back(&heddle::make<Region>(fmt::format("dev{}.{}", d, name), elem, count));
      continue;
    }
    for (std::uint32_t c = 0; c < mesh.cores(); ++c)
      a.instances.push_back(
          &heddle::make<Region>(fmt::format("{}.{}", mesh.core_name(d, c), name), elem, count));
  }
  return a;
}

void Place::add_accesses(Footprint& fp, bool write) const {
  const auto es = static_cast<std::uint32_t>(region->elem_size());
  for (std::size_t i = 0; i < runs(); ++i) {
    const auto lo = static_cast<std::uint32_t>(run_first(i)) * es;
    fp.push_back(Access{region->id(), lo, lo + static_cast<std::uint32_t>(run_size()) * es, write});
  }
}

Access Place::access(bool write) const {
  const auto es = static_cast<std::uint32_t>(region->elem_size());
  return Access{region->id(), static_cast<std::uint32_t>(first) * es,
                static_cast<std::uint32_t>(first + count) * es, write};
}

}  // namespace heddle::tpu
