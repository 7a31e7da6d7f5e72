// How every report names a range of a region: one half-open slice notation,
// and the unit said where it is bytes (issue 50.5: "sOut[0..127]" beside
// "sOut[0:256]" for the same bytes of a float array, read as elements).
#pragma once
#include <cstdint>
#include <string>

namespace heddle {

/// "data[3]", "data[0:4]" (elements 0 to 3); a region of 1-byte elements
/// (PTX .b8 arrays, raw memory) says so: "sOut byte 3", "sOut bytes [0:256]".
/// `elem_size` 0: the unit is unknown, said as elements.
std::string range_words(const std::string& region, std::size_t elem_size, std::uint64_t first,
                        std::uint64_t count);
/// The unit a race's title (built with range_words) gives `region`: 1 when
/// it says bytes, else 0. Reports keep the title and the accesses' element
/// ranges; this lets an access's range say bytes as its title does.
std::size_t unit_in_title(const std::string& title, const std::string& region);

}  // namespace heddle
