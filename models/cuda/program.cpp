// `heddle cuda [options] -- ./app args`: runs the program with heddle's
// libcudart.so.13 and libcuda.so.1 first on its library path, the options
// in HEDDLE_CUDA_OPTIONS, and reads how it ended from a status file the
// runtime appends to (launches, a bug, an error).
#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <vector>

#include "checker/engine/errors.hpp"
#include "checker/program_runner.hpp"
#include "models/cuda/cuda_lib_dir.hpp"
#include "models/cuda/options.hpp"

namespace heddle::cuda {
namespace {

std::string library_dir() {
  const char* dir = std::getenv("HEDDLE_CUDA_LIB");
  std::string d = dir != nullptr && *dir != '\0' ? dir : kCudaLibDir;
  if (access((d + "/libcudart.so.13").c_str(), R_OK) != 0)
    throw UsageError(fmt::format("heddle's CUDA runtime is not at {} (build heddle with the CUDA "
                                 "toolkit's headers installed, or point HEDDLE_CUDA_LIB at it)",
                                 d));
  return d;
}

std::string quoted(const std::vector<std::string>& argv) {
  std::string out;
  for (const std::string& a : argv) {
    if (!out.empty()) out += ' ';
    out += a.find_first_of(" \t'\"") == std::string::npos ? a : "'" + a + "'";
  }
  return out;
}

[[noreturn]] void exec_program(const std::vector<std::string>& argv, const std::string& options,
                               const std::string& dir) {
  const char* old = std::getenv("LD_LIBRARY_PATH");
  std::string path = old != nullptr && *old != '\0' ? dir + ":" + old : dir;
  setenv("LD_LIBRARY_PATH", path.c_str(), 1);
  setenv(kOptionsVariable, options.c_str(), 1);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  execvp(args[0], args.data());
  std::fprintf(stderr, "heddle: error: cannot run %s: %s\n", args[0], std::strerror(errno));
  _exit(127);
}

// The status file's lines.
std::vector<std::string> read_status(const std::string& path) {
  std::vector<std::string> lines;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

int run(const std::map<std::string, std::string>& given, const std::vector<std::string>& argv) {
  if (argv.empty()) throw UsageError("heddle cuda: give the program to run after --");
  launch_checker().validate(given);  // bad options are reported before the program runs
  char status_path[] = "/tmp/heddle-cuda-status-XXXXXX";
  int fd = mkstemp(status_path);
  if (fd < 0) throw UsageError(fmt::format("cannot create a status file: {}", std::strerror(errno)));
  close(fd);
  std::map<std::string, std::string> options = given;
  options["status"] = status_path;
  options["command"] = quoted(argv);
  options["runner"] = "cuda";
  const std::string encoded = encode_options(options), dir = library_dir();
  std::fflush(stdout);
  pid_t pid = fork();
  if (pid < 0) throw UsageError(fmt::format("cannot start {}: {}", argv[0], std::strerror(errno)));
  if (pid == 0) exec_program(argv, encoded, dir);
  int wstatus = 0;
  while (waitpid(pid, &wstatus, 0) < 0 && errno == EINTR) {
  }
  std::vector<std::string> lines = read_status(status_path);
  std::remove(status_path);
  int launches = 0;
  for (const std::string& l : lines) {
    if (l == "bug") return 1;  // the report is printed
    if (l.rfind("error ", 0) == 0) return 2;
    if (l.rfind("launch ", 0) == 0) ++launches;
  }
  if (WIFSIGNALED(wstatus)) {
    int sig = WTERMSIG(wstatus);
    std::fprintf(stderr, "heddle cuda: the program %s crashed (signal %d, %s) after %d kernel "
                 "launches; no heddle bug found before it\n",
                 argv[0].c_str(), sig, strsignal(sig), launches);
    return 128 + sig;
  }
  int code = WEXITSTATUS(wstatus);
  if (code == 127 && launches == 0) return 2;
  if (code != 0)
    std::fprintf(stderr, "heddle cuda: the program %s exited with status %d after %d kernel "
                 "launches (its own failure: heddle found no bug)\n",
                 argv[0].c_str(), code, launches);
  else
    std::fprintf(stderr, "heddle cuda: the program exited normally; %d kernel launches, no bug "
                 "found within the bounds\n",
                 launches);
  return code;
}

const Registration registered = register_program_runner(ProgramRunner{
    "cuda",
    "run a CUDA program (nvcc -cudart shared, with compute_90a PTX) and check every kernel "
    "launch's schedules: heddle cuda [options] -- ./app args",
    run});

}  // namespace
}  // namespace heddle::cuda
