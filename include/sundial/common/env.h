// Env: the view of the file system, memory maps and clock shared by every
// module that touches disk (storage and rollup).
//
// Why: every byte the server reads or writes goes through this interface, so
// tests can swap in a FaultInjectionEnv (write errors, a disk that fills up,
// torn writes) without touching the engine. Offsets and sizes are uint64_t everywhere so
// that 32-bit builds handle files beyond 4 GiB.
//
// Thread-safety: Env methods are safe to call concurrently. A File may be
// used concurrently for positional reads and writes (pread/pwrite); Sync and
// Truncate may run concurrently with them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "sundial/common/status.h"

namespace sundial {

// A read-only memory mapping of [offset, offset + size) of a file. Unmaps on
// destruction. The bytes stay valid while the object lives.
class MappedRegion {
 public:
  MappedRegion() = default;
  MappedRegion(const MappedRegion&) = delete;
  MappedRegion& operator=(const MappedRegion&) = delete;
  virtual ~MappedRegion() = default;

  virtual const char* data() const = 0;
  virtual size_t size() const = 0;
  virtual uint64_t offset() const = 0;
};

// An open file with positional I/O. Closed on destruction.
class File {
 public:
  File() = default;
  File(const File&) = delete;
  File& operator=(const File&) = delete;
  virtual ~File() = default;

  // Writes all n bytes at offset, or returns an error (ENOSPC shows as
  // IOError with "No space left on device" in the message). On error some
  // prefix of the bytes may have reached the file.
  virtual Status Write(uint64_t offset, const char* data, size_t n) = 0;
  // Reads up to n bytes at offset into dst; *got is the count (short at EOF).
  virtual Status Read(uint64_t offset, size_t n, char* dst, size_t* got) = 0;
  virtual Status Sync() = 0;
  virtual Status Truncate(uint64_t size) = 0;
  virtual Status Size(uint64_t* size) = 0;
  // Maps [offset, offset + len) read-only. offset must be a multiple of the
  // system page size. REQUIRES: the range lies within the file.
  virtual Status Map(uint64_t offset, size_t len, std::unique_ptr<MappedRegion>* out) = 0;
  virtual const std::string& path() const = 0;
  // A hint: [offset, offset + len) will be read soon. Starts reading it
  // into the page cache without waiting for it (POSIX_FADV_WILLNEED), so
  // that many scattered reads go to the device at once instead of one
  // page fault after another. Reads only that range, no readahead around
  // it. Does nothing where unsupported; never fails.
  virtual void WillNeed(uint64_t offset, uint64_t len) {
    (void)offset;
    (void)len;
  }
  // A hint: the file will grow to at least `bytes`. Makes it at least that
  // long now, the new part reading as zeros, with its blocks allocated
  // (fallocate, mode 0). Why, for an append-and-fsync log (measured on
  // ext4, Linux 6.18):
  // - blocks allocated one fsync at a time make the file system change
  //   (and the kernel count) more than the appended bytes on each fsync:
  //   1,000-byte appends each followed by an fsync 5 s apart cost 6.7 KB
  //   of writes each, 5.6 KB with the blocks allocated first;
  // - a write that moves the end of the file past a partly filled last
  //   block also makes that block dirty again (the file system zeroes its
  //   tail), even when the write starts in the next block. Inside the
  //   file's size it does not: 1,250-byte appends that start at the next
  //   block rather than straddle two, each with an fsync, cost 4,096 bytes
  //   per fsync within the size and 5,427 beyond it.
  // Does nothing where unsupported (no zeros are written instead); never
  // fails.
  virtual void Preallocate(uint64_t bytes) { (void)bytes; }
};

class Env {
 public:
  Env() = default;
  Env(const Env&) = delete;
  Env& operator=(const Env&) = delete;
  virtual ~Env() = default;

  // Opens path for reading and writing, creating it (empty) if missing.
  virtual Status OpenFile(const std::string& path, std::unique_ptr<File>* out) = 0;
  // Opens an existing path for reading and writing. NotFound if it does not
  // exist (a file removed meanwhile is not created again).
  virtual Status OpenExistingFile(const std::string& path, std::unique_ptr<File>* out) = 0;
  // Opens an existing path for reading only (Write, Truncate and Sync fail).
  // NotFound if it does not exist. Creates nothing, so it works on a full or
  // read-only file system.
  virtual Status OpenReadOnlyFile(const std::string& path, std::unique_ptr<File>* out) = 0;
  // Size of the file at path. NotFound if it does not exist.
  virtual Status GetFileSize(const std::string& path, uint64_t* size) = 0;
  // Bytes available to this process on the file system holding path.
  virtual Status FreeSpace(const std::string& path, uint64_t* bytes) = 0;
  // Reads the whole file. NotFound if it does not exist.
  virtual Status ReadFileToString(const std::string& path, std::string* out) = 0;
  // Names (not paths) of the entries in dir, without "." and "..".
  virtual Status ListDir(const std::string& dir, std::vector<std::string>* names) = 0;
  // Creates dir; Ok if it already exists.
  virtual Status CreateDir(const std::string& dir) = 0;
  virtual Status RemoveFile(const std::string& path) = 0;
  // Removes an empty directory.
  virtual Status RemoveDir(const std::string& dir) = 0;
  virtual Status RenameFile(const std::string& from, const std::string& to) = 0;
  // Makes `to` a second name (hard link) of the existing file `from`. An
  // error (for Envs or file systems without hard links too) leaves no `to`.
  virtual Status LinkFile(const std::string& from, const std::string& to) {
    (void)from;
    return Status::IOError(to, "hard links are not supported");
  }
  // fsyncs a directory so that creations, renames and removals in it last.
  virtual Status SyncDir(const std::string& dir) = 0;
  virtual bool FileExists(const std::string& path) = 0;
  // Wall-clock time, epoch milliseconds.
  virtual int64_t NowMs() = 0;
};

// An Env that forwards every call to another, for Envs that change a few
// calls and pass the rest on (caching, counting, fault injection). target
// is borrowed and must outlive the wrapper and every file it opened.
class EnvWrapper : public Env {
 public:
  explicit EnvWrapper(Env* target) : target_(target) {}
  Env* target() const { return target_; }

  Status OpenFile(const std::string& p, std::unique_ptr<File>* out) override {
    return target_->OpenFile(p, out);
  }
  Status OpenExistingFile(const std::string& p, std::unique_ptr<File>* out) override {
    return target_->OpenExistingFile(p, out);
  }
  Status OpenReadOnlyFile(const std::string& p, std::unique_ptr<File>* out) override {
    return target_->OpenReadOnlyFile(p, out);
  }
  Status GetFileSize(const std::string& p, uint64_t* size) override {
    return target_->GetFileSize(p, size);
  }
  Status FreeSpace(const std::string& p, uint64_t* bytes) override {
    return target_->FreeSpace(p, bytes);
  }
  Status ReadFileToString(const std::string& p, std::string* out) override {
    return target_->ReadFileToString(p, out);
  }
  Status ListDir(const std::string& d, std::vector<std::string>* names) override {
    return target_->ListDir(d, names);
  }
  Status CreateDir(const std::string& d) override { return target_->CreateDir(d); }
  Status RemoveFile(const std::string& p) override { return target_->RemoveFile(p); }
  Status RemoveDir(const std::string& d) override { return target_->RemoveDir(d); }
  Status RenameFile(const std::string& from, const std::string& to) override {
    return target_->RenameFile(from, to);
  }
  Status LinkFile(const std::string& from, const std::string& to) override {
    return target_->LinkFile(from, to);
  }
  Status SyncDir(const std::string& d) override { return target_->SyncDir(d); }
  bool FileExists(const std::string& p) override { return target_->FileExists(p); }
  int64_t NowMs() override { return target_->NowMs(); }

 private:
  Env* const target_;
};

// The POSIX Env. Caller owns it.
std::unique_ptr<Env> NewPosixEnv();

// The system page size (mmap offsets must be multiples of it).
uint64_t SystemPageSize();

// Zero-filled memory taken straight from the OS (an anonymous mapping) and
// given back to it when freed, for large blocks whose lifetimes differ from
// the heap's neighbours (a freed heap block may stay in the process's RSS).
// Returns null if the OS refuses. REQUIRES: bytes > 0.
void* AllocatePages(size_t bytes);
void FreePages(void* p, size_t bytes);

}  // namespace sundial
