// Reports name the user's file relative to the user's source root, never
// cut at a folder that happens to share a heddle layer's name (issue 47).
#include <catch2/catch.hpp>

#include "checker/engine/source_path.hpp"

using heddle::set_source_root;
using heddle::source_path;

TEST_CASE("source paths are relative to the user's source root, not cut at layer names",
          "[engine][source_path]") {
  SECTION("a relative path from a build directory inside the tree loses only its ../") {
    CHECK(source_path("../holdout/models/kernels/X.cpp") == "holdout/models/kernels/X.cpp");
    CHECK(source_path("../../proj/checker/a.cpp") == "proj/checker/a.cpp");
    CHECK(source_path("./kernels/demo/handoff.cpp") == "kernels/demo/handoff.cpp");
    CHECK(source_path("kernels/demo/handoff.cpp") == "kernels/demo/handoff.cpp");
  }
  SECTION("dot segments inside a path are resolved (nvcc's .file of a meson-built .cu)") {
    CHECK(source_path("build/../kernels/cuda/x.cu") == "kernels/cuda/x.cu");
    CHECK(source_path("../build/../kernels/./cuda/x.cu") == "kernels/cuda/x.cu");
    set_source_root("/home/u/proj");
    CHECK(source_path("/home/u/proj/build/../kernels/cuda/x.cu") == "kernels/cuda/x.cu");
    set_source_root("");
  }
  SECTION("--source-root: an absolute path under it loses it; others stay whole") {
    set_source_root("/home/u/proj");
    CHECK(source_path("/home/u/proj/holdout/models/kernels/X.cpp") ==
          "holdout/models/kernels/X.cpp");
    CHECK(source_path("/home/u/proj/") == "");
    CHECK(source_path("/home/u/project2/models/kernels/X.cpp") ==
          "/home/u/project2/models/kernels/X.cpp");
    CHECK(source_path("/opt/other/models/kernels/X.cpp") == "/opt/other/models/kernels/X.cpp");
    set_source_root("/home/u/proj/");  // a trailing slash names the same root
    CHECK(source_path("/home/u/proj/holdout/models/kernels/X.cpp") ==
          "holdout/models/kernels/X.cpp");
    set_source_root("");
  }
  SECTION("without --source-root, the build's source directory is a root") {
    const std::string self = HEDDLE_SOURCE_ROOT "/holdout/models/kernels/X.cpp";
    CHECK(source_path(self) == "holdout/models/kernels/X.cpp");
  }
}
