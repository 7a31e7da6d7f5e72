// The run of one program under heddle, seen from inside it: the options
// `heddle cuda` passed, the launches so far, and how the run ends (the
// status file heddle reads after the program exits).
#pragma once
#include <string>

#include "models/cuda/options.hpp"

namespace heddle::cuda {

/// The options of this run (read from the environment once); a usage error
/// in them ends the program (exit 2).
const Options& options();

/// Appends a line to the status file ("launch ...", "bug ...", "error ...").
void record(const std::string& line);

/// Prints "heddle: error: WHAT" on stderr, records it and ends the program
/// with exit status 2 (no destructors or atexit handlers run: the program's
/// own cleanup would call back into the runtime).
[[noreturn]] void fail(const std::string& what);

/// Ends the program after a bug was reported: exit status 1.
[[noreturn]] void stop_for_bug();

}  // namespace heddle::cuda
