// POSIX implementation of Env: pread/pwrite, fsync, mmap windows.
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/types.h>
#include <unistd.h>

#include <chrono>
#include <cstring>

#include "sundial/common/env.h"

namespace sundial {
namespace {

Status PosixError(const std::string& context, int err) {
  if (err == ENOENT) return Status::NotFound(context, std::strerror(err));
  return Status::IOError(context, std::strerror(err));
}

class PosixMappedRegion final : public MappedRegion {
 public:
  PosixMappedRegion(void* base, size_t size, uint64_t offset)
      : base_(base), size_(size), offset_(offset) {}
  ~PosixMappedRegion() override { munmap(base_, size_); }
  const char* data() const override { return static_cast<const char*>(base_); }
  size_t size() const override { return size_; }
  uint64_t offset() const override { return offset_; }

 private:
  void* const base_;
  const size_t size_;
  const uint64_t offset_;
};

class PosixFile final : public File {
 public:
  PosixFile(std::string path, int fd) : path_(std::move(path)), fd_(fd) {}
  ~PosixFile() override { close(fd_); }

  Status Write(uint64_t offset, const char* data, size_t n) override {
    while (n > 0) {
      const ssize_t w = pwrite(fd_, data, n, static_cast<off_t>(offset));
      if (w < 0) {
        if (errno == EINTR) continue;
        return PosixError(path_, errno);
      }
      data += w;
      n -= static_cast<size_t>(w);
      offset += static_cast<uint64_t>(w);
    }
    return Status::OK();
  }

  Status Read(uint64_t offset, size_t n, char* dst, size_t* got) override {
    *got = 0;
    while (n > 0) {
      const ssize_t r = pread(fd_, dst, n, static_cast<off_t>(offset));
      if (r < 0) {
        if (errno == EINTR) continue;
        return PosixError(path_, errno);
      }
      if (r == 0) break;
      dst += r;
      n -= static_cast<size_t>(r);
      offset += static_cast<uint64_t>(r);
      *got += static_cast<size_t>(r);
    }
    return Status::OK();
  }

  Status Sync() override {
    if (fdatasync(fd_) != 0) return PosixError(path_, errno);
    return Status::OK();
  }

  Status Truncate(uint64_t size) override {
    if (ftruncate(fd_, static_cast<off_t>(size)) != 0) return PosixError(path_, errno);
    return Status::OK();
  }

  Status Size(uint64_t* size) override {
    struct stat st;
    if (fstat(fd_, &st) != 0) return PosixError(path_, errno);
    *size = static_cast<uint64_t>(st.st_size);
    return Status::OK();
  }

  Status Map(uint64_t offset, size_t len, std::unique_ptr<MappedRegion>* out) override {
    void* base = mmap(nullptr, len, PROT_READ, MAP_SHARED, fd_, static_cast<off_t>(offset));
    if (base == MAP_FAILED) return PosixError(path_ + " mmap", errno);
    out->reset(new PosixMappedRegion(base, len, offset));
    return Status::OK();
  }

  const std::string& path() const override { return path_; }

  void WillNeed(uint64_t offset, uint64_t len) override {
    (void)posix_fadvise(fd_, static_cast<off_t>(offset), static_cast<off_t>(len),
                        POSIX_FADV_WILLNEED);
  }

  void Preallocate(uint64_t bytes) override {
#ifdef __linux__
    (void)fallocate(fd_, 0, 0, static_cast<off_t>(bytes));
#else
    (void)bytes;
#endif
  }

 private:
  const std::string path_;
  const int fd_;
};

class PosixEnv final : public Env {
 public:
  Status OpenFile(const std::string& path, std::unique_ptr<File>* out) override {
    const int fd = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) return PosixError(path, errno);
    out->reset(new PosixFile(path, fd));
    return Status::OK();
  }

  Status OpenExistingFile(const std::string& path, std::unique_ptr<File>* out) override {
    const int fd = open(path.c_str(), O_RDWR | O_CLOEXEC);
    if (fd < 0) return PosixError(path, errno);
    out->reset(new PosixFile(path, fd));
    return Status::OK();
  }

  Status OpenReadOnlyFile(const std::string& path, std::unique_ptr<File>* out) override {
    const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return PosixError(path, errno);
    out->reset(new PosixFile(path, fd));
    return Status::OK();
  }

  Status GetFileSize(const std::string& path, uint64_t* size) override {
    struct stat st;
    if (stat(path.c_str(), &st) != 0) return PosixError(path, errno);
    *size = static_cast<uint64_t>(st.st_size);
    return Status::OK();
  }

  Status FreeSpace(const std::string& path, uint64_t* bytes) override {
    struct statvfs vfs;
    if (statvfs(path.c_str(), &vfs) != 0) return PosixError(path, errno);
    *bytes = static_cast<uint64_t>(vfs.f_bavail) * static_cast<uint64_t>(vfs.f_frsize);
    return Status::OK();
  }

  Status ReadFileToString(const std::string& path, std::string* out) override {
    out->clear();
    const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return PosixError(path, errno);
    char buf[65536];
    for (;;) {
      const ssize_t r = read(fd, buf, sizeof(buf));
      if (r < 0) {
        if (errno == EINTR) continue;
        const int err = errno;
        close(fd);
        return PosixError(path, err);
      }
      if (r == 0) break;
      out->append(buf, static_cast<size_t>(r));
    }
    close(fd);
    return Status::OK();
  }

  Status ListDir(const std::string& dir, std::vector<std::string>* names) override {
    names->clear();
    DIR* d = opendir(dir.c_str());
    if (d == nullptr) return PosixError(dir, errno);
    while (struct dirent* e = readdir(d)) {
      const std::string name = e->d_name;
      if (name != "." && name != "..") names->push_back(name);
    }
    closedir(d);
    return Status::OK();
  }

  Status CreateDir(const std::string& dir) override {
    if (mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST) return PosixError(dir, errno);
    return Status::OK();
  }

  Status RemoveFile(const std::string& path) override {
    if (unlink(path.c_str()) != 0) return PosixError(path, errno);
    return Status::OK();
  }

  Status RemoveDir(const std::string& dir) override {
    if (rmdir(dir.c_str()) != 0) return PosixError(dir, errno);
    return Status::OK();
  }

  Status RenameFile(const std::string& from, const std::string& to) override {
    if (rename(from.c_str(), to.c_str()) != 0) return PosixError(from + " -> " + to, errno);
    return Status::OK();
  }

  Status LinkFile(const std::string& from, const std::string& to) override {
    if (link(from.c_str(), to.c_str()) != 0) return PosixError(from + " -> " + to, errno);
    return Status::OK();
  }

  Status SyncDir(const std::string& dir) override {
    const int fd = open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return PosixError(dir, errno);
    const int rc = fsync(fd);
    const int err = errno;
    close(fd);
    if (rc != 0) return PosixError(dir, err);
    return Status::OK();
  }

  bool FileExists(const std::string& path) override {
    return access(path.c_str(), F_OK) == 0;
  }

  int64_t NowMs() override {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
  }
};

}  // namespace

std::unique_ptr<Env> NewPosixEnv() { return std::make_unique<PosixEnv>(); }

uint64_t SystemPageSize() {
  const long ps = sysconf(_SC_PAGESIZE);
  return ps > 0 ? static_cast<uint64_t>(ps) : 4096;
}

void* AllocatePages(size_t bytes) {
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  return p == MAP_FAILED ? nullptr : p;
}

void FreePages(void* p, size_t bytes) {
  if (p != nullptr) munmap(p, bytes);
}

}  // namespace sundial
