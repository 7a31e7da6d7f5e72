// Source paths as reports print them: relative to the user's source root,
// so that a report's file:line (and SARIF's artifactLocation) names a file
// of the user's tree, whatever folders that tree has.
#pragma once
#include <string>
#include <string_view>

namespace heddle {

/// Makes reports print paths relative to `dir` (`--source-root`); empty:
/// the defaults of source_path().
void set_source_root(std::string dir);

/// `file` as the compiler named it, relative to the user's source root:
/// an absolute path under the root set by set_source_root (else under the
/// working directory or the source directory heddle was built from) loses
/// that prefix; a relative path (the compiler's, from a build directory
/// inside the tree) loses its leading "./" and "../"; any other path is
/// printed whole. Never cut at a folder's name.
std::string source_path(std::string_view file);

}  // namespace heddle
