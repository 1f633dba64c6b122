#include "file_reader.h"
#include "sundial/common/thread_name.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <cerrno>
#include <cstring>

namespace sundial::server {

FileReader::~FileReader() {
  {
    MutexLock l(&mu_);
    stop_ = true;
    cv_.SignalAll();
  }
  if (thread_.joinable()) thread_.join();
  if (gz_ != nullptr) gzclose(static_cast<gzFile>(gz_));
}

Status FileReader::Open(const std::string& path) {
  gzFile gz = nullptr;
  if (path == "-") {
    name_ = "<stdin>";
    gz = gzdopen(::dup(STDIN_FILENO), "rb");
  } else {
    // open() and not gzopen(): with _FILE_OFFSET_BITS=64 it opens files
    // over 2 GiB on 32-bit systems too.
    name_ = path;
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return Status::IOError(name_, std::strerror(errno));
    struct stat st{};
    if (::fstat(fd, &st) == 0) size_ = static_cast<uint64_t>(st.st_size);
    gz = gzdopen(fd, "rb");
    if (gz == nullptr) ::close(fd);
  }
  if (gz == nullptr) return Status::IOError(name_, std::strerror(errno));
  gzbuffer(gz, kBlockBytes);
  gz_ = gz;
  thread_ = std::thread([this] {
    SetThreadName("sd-read");
    Run();
  });
  return Status::OK();
}

void FileReader::Run() {
  gzFile gz = static_cast<gzFile>(gz_);
  for (;;) {
    std::string block(kBlockBytes, '\0');
    const int n = gzread(gz, block.data(), static_cast<unsigned>(block.size()));
    Status error;
    if (n <= 0) {
      // At the end zlib reports a gzip stream cut short as Z_BUF_ERROR
      // ("unexpected end of file") while gzread() returns 0.
      int errnum = Z_OK;
      const char* msg = gzerror(gz, &errnum);
      if (n < 0 || errnum != Z_OK) {
        error = Status::IOError(name_, errnum == Z_ERRNO ? std::strerror(errno) : msg);
      }
    }
    MutexLock l(&mu_);
    // z_off_t may be 32 bits wide on 32-bit systems: the progress line then
    // shows no offset past 2 GiB of compressed input.
    const auto at = gzoffset(gz);
    if (at >= 0) offset_ = static_cast<uint64_t>(at);
    if (n <= 0) {
      status_ = error;
      eof_ = true;
      cv_.SignalAll();
      return;
    }
    block.resize(static_cast<size_t>(n));
    while (blocks_.size() >= kQueueBlocks && !stop_) cv_.Wait();
    if (stop_) return;
    blocks_.push_back(std::move(block));
    cv_.SignalAll();
  }
}

bool FileReader::Next(std::string* block) {
  MutexLock l(&mu_);
  while (blocks_.empty() && !eof_) cv_.Wait();
  if (blocks_.empty()) return false;
  *block = std::move(blocks_.front());
  blocks_.pop_front();
  cv_.SignalAll();
  return true;
}

Status FileReader::status() {
  MutexLock l(&mu_);
  return status_;
}

uint64_t FileReader::offset() {
  MutexLock l(&mu_);
  return offset_;
}

}  // namespace sundial::server
