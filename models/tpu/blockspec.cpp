#include "models/tpu/blockspec.hpp"

#include <fmt/format.h>

namespace heddle::tpu {

void check_grid_spec(const GridSpec& g, std::source_location loc) {
  for (auto n : g.grid)
    if (n < 1) throw ModelError(fmt::format("grid dimension of size {}: sizes must be >= 1", n), loc);
  if (!g.dimension_semantics.empty() && g.dimension_semantics.size() != g.grid.size())
    throw ModelError(fmt::format("{} dimension semantics for a grid of rank {}",
                                 g.dimension_semantics.size(), g.grid.size()),
                     loc);
  for (const auto& s : g.dimension_semantics)
    if (s != "parallel" && s != "arbitrary")
      throw ModelError(fmt::format("dimension semantics \"{}\": use \"parallel\" or \"arbitrary\"", s),
                       loc);
}

std::size_t check_array_spec(const ArraySpec& s, std::source_location loc) {
  if (!s.block.index_map)
    throw ModelError(fmt::format("BlockSpec of {} has no index_map", s.name), loc);
  if (s.block.block_shape.size() != s.shape.size())
    throw ModelError(fmt::format("BlockSpec of {} has rank {}, its array rank {}", s.name,
                                 s.block.block_shape.size(), s.shape.size()),
                     loc);
  std::size_t elems = 1;
  for (std::size_t d = 0; d < s.shape.size(); ++d) {
    const auto b = s.block.block_shape[d].value_or(1);
    if (b < 1 || b > s.shape[d])
      throw ModelError(fmt::format("block dimension {} of {} is {}, the array's {}", d, s.name, b,
                                   s.shape[d]),
                       loc);
    elems *= static_cast<std::size_t>(b);
  }
  return elems;
}

void check_operands(const std::vector<ArraySpec>& specs, const std::vector<std::size_t>& sizes,
                    const char* what, std::source_location loc) {
  if (specs.size() != sizes.size())
    throw ModelError(fmt::format("{} {} given for {} specs", sizes.size(), what, specs.size()), loc);
  for (std::size_t k = 0; k < specs.size(); ++k) {
    std::size_t n = 1;
    for (auto d : specs[k].shape) n *= static_cast<std::size_t>(d);
    if (n != sizes[k])
      throw ModelError(fmt::format("{} is an array of {} elements, but its ref has {}",
                                   specs[k].name, n, sizes[k]),
                       loc);
  }
}

}  // namespace heddle::tpu
