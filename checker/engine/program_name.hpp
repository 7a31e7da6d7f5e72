// The name messages give the program: the basename of argv[0], so that a
// user's own binary (heddle's main linked with their models) speaks as
// itself, not as "heddle" (issue 50.17).
#pragma once
#include <string>

namespace heddle {

/// Sets the name from argv[0] (its basename); "heddle" when empty.
void set_program_name(const std::string& argv0);
/// The name set by set_program_name, or "heddle" before it.
const std::string& program_name();

}  // namespace heddle
