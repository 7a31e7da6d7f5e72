// The provided main: link it with your kernel models to get the heddle CLI.
#include "checker/cli/cli.hpp"

int main(int argc, char** argv) { return heddle::main(argc, argv); }
