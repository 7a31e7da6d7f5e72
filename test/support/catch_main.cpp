// The Catch2 main of heddle's test binary.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
