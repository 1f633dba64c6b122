#include "data_dir_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace sundial::server {

namespace {

Status MakeDirs(const std::string& dir) {
  std::string partial;
  size_t pos = 0;
  while (pos <= dir.size()) {
    size_t slash = dir.find('/', pos);
    if (slash == std::string::npos) slash = dir.size();
    partial = dir.substr(0, slash);
    pos = slash + 1;
    if (partial.empty()) continue;
    if (mkdir(partial.c_str(), 0755) != 0 && errno != EEXIST) {
      return Status::IOError("cannot create data directory " + partial, strerror(errno));
    }
  }
  struct stat st;
  if (stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    return Status::IOError("data directory is not a directory", dir);
  }
  return Status::OK();
}

}  // namespace

DataDirLock::~DataDirLock() {
  if (fd_ >= 0) close(fd_);  // releases the flock
}

Status DataDirLock::Acquire(const std::string& dir) {
  SUNDIAL_RETURN_IF_ERROR(MakeDirs(dir));
  const std::string path = dir + "/sundiald.lock";
  const int fd = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return Status::IOError("cannot open lock file " + path, strerror(errno));
  if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
    const int err = errno;
    char pid[32] = {0};
    const ssize_t n = pread(fd, pid, sizeof(pid) - 1, 0);
    close(fd);
    if (err == EWOULDBLOCK) {
      std::string holder = n > 0 ? std::string(pid, static_cast<size_t>(n)) : "unknown";
      while (!holder.empty() && (holder.back() == '\n' || holder.back() == ' ')) holder.pop_back();
      return Status::Busy("data directory " + dir + " is in use by another sundiald (pid " +
                          holder + ", lock " + path + ")");
    }
    return Status::IOError("cannot lock " + path, strerror(err));
  }
  const std::string me = std::to_string(getpid()) + "\n";
  if (ftruncate(fd, 0) != 0 || pwrite(fd, me.data(), me.size(), 0) < 0) {
    // The lock itself holds; the pid text is only informative.
  }
  fd_ = fd;
  return Status::OK();
}

}  // namespace sundial::server
