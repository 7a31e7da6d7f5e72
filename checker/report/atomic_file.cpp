#include "checker/report/atomic_file.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>

#include "checker/engine/errors.hpp"

namespace heddle {
namespace {
[[noreturn]] void cannot(const std::string& path, int err) {
  throw UsageError(fmt::format("cannot write {}: {}", path, std::strerror(err)));
}

// Writes all of `text` to `fd`; 0, or the errno of the failure (a short
// write with no errno is a full device: ENOSPC).
int write_all(int fd, const std::string& text) {
  std::size_t done = 0;
  while (done < text.size()) {
    ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno;
    if (n == 0) return ENOSPC;
    done += static_cast<std::size_t>(n);
  }
  return 0;
}

// A file that exists and is not a regular file (a device, a pipe): written in place.
void write_in_place(const std::string& path, const std::string& text) {
  int fd = ::open(path.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
  if (fd < 0) cannot(path, errno);
  int err = write_all(fd, text);
  if (::close(fd) != 0 && err == 0) err = errno;
  if (err != 0) cannot(path, err);
}

// The mode a new file gets: 0666 less the process's umask.
mode_t new_file_mode() {
  mode_t mask = ::umask(0);
  ::umask(mask);
  return 0666 & ~mask;
}
}  // namespace

void write_file_atomic(const std::string& path, const std::string& text) {
  if (path.empty()) throw UsageError("cannot write a file with an empty name");
  // A file size limit (ulimit -f) must be a write error, not a kill
  // (cli's main ignores SIGXFSZ too, for its output).
  std::signal(SIGXFSZ, SIG_IGN);
  struct stat st = {};
  if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
    if (S_ISDIR(st.st_mode)) cannot(path, EISDIR);
    write_in_place(path, text);
    return;
  }
  const auto slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? "" : path.substr(0, slash + 1);
  const std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  // Hidden, beside the target (a rename stays in one file system), and
  // short enough for any name the target may have (NAME_MAX is 255).
  std::string tmp = dir + "." + base.substr(0, 200) + ".heddle-tmp-XXXXXX";
  int fd = ::mkstemp(tmp.data());
  if (fd < 0) cannot(path, errno);
  int err = write_all(fd, text);
  if (err == 0 && ::fchmod(fd, new_file_mode()) != 0) err = errno;
  if (::close(fd) != 0 && err == 0) err = errno;
  if (err == 0 && ::rename(tmp.c_str(), path.c_str()) != 0) err = errno;
  if (err != 0) {
    ::unlink(tmp.c_str());
    cannot(path, err);
  }
}

}  // namespace heddle
