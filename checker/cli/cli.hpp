// The heddle command line (list, run, replay), usable from a user's main.
#pragma once

namespace heddle {

/// Runs the heddle CLI over the registered kernels. Exit codes: 0 no bug
/// found, 1 bug found, 2 usage or input error.
int main(int argc, char** argv);

}  // namespace heddle
