// Writing an artifact (counterexample, summary, report, timeline) so that a
// reader never sees half of it: the text goes to a temporary file in the
// same directory, which is renamed over the target only once it is whole.
#pragma once
#include <string>

namespace heddle {

/// Writes `text` to `path` atomically, replacing any earlier file; on any
/// failure (a full disk, a file size limit, no permission) the earlier file
/// is left as it was, the temporary file is removed, and UsageError says
/// "cannot write PATH: why". A path that is not a regular file (/dev/null,
/// /dev/full, a pipe) is written in place: it cannot be renamed over.
void write_file_atomic(const std::string& path, const std::string& text);

}  // namespace heddle
