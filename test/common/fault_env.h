// FaultInjectionEnv: an Env that forwards to another and can fail writes as
// a full disk or a failing device would, for tests of the error paths of
// every module that writes files (storage and rollup).
//
// Faults apply only to paths containing the filter substring (empty: all).
// - SetSpace(n): writes beyond n further bytes fail with "No space left on
//   device"; with SetTornWrites(true) the failing write first lands the part
//   that still fits (a torn write). FreeSpace() reports what is left.
// - SetFailWrites(true): every write, sync and truncate fails with an I/O
//   error (a dying device).
// - SetFailOpen(true): opening or creating files and directories fails
//   ("Too many open files").
//
// Thread-safety: all setters and Env methods are safe to call concurrently.
#pragma once

#include <algorithm>
#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "sundial/common/env.h"

namespace sundial::testing {

class FaultInjectionEnv final : public Env {
 public:
  explicit FaultInjectionEnv(std::unique_ptr<Env> base) : base_(std::move(base)) {}

  // Negative: unlimited.
  void SetSpace(int64_t bytes) { state_->space.store(bytes); }
  void SetTornWrites(bool on) { state_->torn.store(on); }
  void SetFailWrites(bool on) { state_->fail.store(on); }
  void SetFailOpen(bool on) { state_->fail_open.store(on); }
  // Only paths containing filter see faults. REQUIRES: no concurrent I/O.
  void SetFilter(const std::string& filter) { state_->filter = filter; }
  // Number of writes that failed so far.
  uint64_t failed_writes() const { return state_->failed.load(); }
  // Number of file syncs on paths containing the filter so far.
  uint64_t syncs() const { return state_->syncs.load(); }
  // Read-ahead hints (File::WillNeed) on paths containing the filter so
  // far: calls and bytes.
  uint64_t will_need_calls() const { return state_->will_need_calls.load(); }
  uint64_t will_need_bytes() const { return state_->will_need_bytes.load(); }
  // Reads (File::Read) on paths containing the filter so far.
  uint64_t reads() const { return state_->reads.load(); }

  Status OpenFile(const std::string& path, std::unique_ptr<File>* out) override {
    if (OpenFails(path)) return Status::IOError(path, "Too many open files");
    std::unique_ptr<File> f;
    SUNDIAL_RETURN_IF_ERROR(base_->OpenFile(path, &f));
    out->reset(new FaultFile(std::move(f), state_));
    return Status::OK();
  }
  Status OpenExistingFile(const std::string& path, std::unique_ptr<File>* out) override {
    if (OpenFails(path)) return Status::IOError(path, "Too many open files");
    std::unique_ptr<File> f;
    SUNDIAL_RETURN_IF_ERROR(base_->OpenExistingFile(path, &f));
    out->reset(new FaultFile(std::move(f), state_));
    return Status::OK();
  }
  Status OpenReadOnlyFile(const std::string& path, std::unique_ptr<File>* out) override {
    if (OpenFails(path)) return Status::IOError(path, "Too many open files");
    return base_->OpenReadOnlyFile(path, out);
  }
  Status GetFileSize(const std::string& p, uint64_t* size) override {
    return base_->GetFileSize(p, size);
  }
  Status FreeSpace(const std::string& p, uint64_t* bytes) override {
    const int64_t left = state_->space.load();
    if (left >= 0) {
      *bytes = static_cast<uint64_t>(left);
      return Status::OK();
    }
    return base_->FreeSpace(p, bytes);
  }
  Status ReadFileToString(const std::string& p, std::string* out) override {
    return base_->ReadFileToString(p, out);
  }
  Status ListDir(const std::string& d, std::vector<std::string>* n) override {
    return base_->ListDir(d, n);
  }
  Status CreateDir(const std::string& d) override {
    if (OpenFails(d) && !base_->FileExists(d)) return Status::IOError(d, "Too many open files");
    return base_->CreateDir(d);
  }
  Status RemoveFile(const std::string& p) override { return base_->RemoveFile(p); }
  Status RemoveDir(const std::string& d) override { return base_->RemoveDir(d); }
  Status RenameFile(const std::string& a, const std::string& b) override {
    return base_->RenameFile(a, b);
  }
  Status SyncDir(const std::string& d) override { return base_->SyncDir(d); }
  bool FileExists(const std::string& p) override { return base_->FileExists(p); }
  int64_t NowMs() override { return base_->NowMs() + state_->clock_offset.load(); }
  // Moves NowMs() forward (for checks that run every so often).
  void AdvanceClock(int64_t ms) { state_->clock_offset.fetch_add(ms); }

 private:
  bool OpenFails(const std::string& path) const {
    return state_->fail_open.load() && state_->Applies(path);
  }

  struct State {
    std::atomic<int64_t> space{-1};
    std::atomic<bool> torn{false};
    std::atomic<bool> fail{false};
    std::atomic<bool> fail_open{false};
    std::atomic<uint64_t> failed{0};
    std::atomic<uint64_t> syncs{0};
    std::atomic<uint64_t> will_need_calls{0};
    std::atomic<uint64_t> will_need_bytes{0};
    std::atomic<uint64_t> reads{0};
    std::atomic<int64_t> clock_offset{0};
    std::string filter;
    bool Applies(const std::string& path) const {
      return filter.empty() || path.find(filter) != std::string::npos;
    }
  };

  class FaultFile final : public File {
   public:
    FaultFile(std::unique_ptr<File> f, std::shared_ptr<State> st)
        : f_(std::move(f)), st_(std::move(st)) {}
    Status Write(uint64_t offset, const char* data, size_t n) override {
      if (!st_->Applies(f_->path())) return f_->Write(offset, data, n);
      if (st_->fail.load()) return Fail("Input/output error");
      int64_t left = st_->space.load();
      while (left >= 0) {
        if (static_cast<uint64_t>(left) < n) {
          if (st_->torn.load() && left > 0) {
            st_->space.store(0);
            (void)f_->Write(offset, data, static_cast<size_t>(left));
          }
          return Fail("No space left on device");
        }
        if (st_->space.compare_exchange_weak(left, left - static_cast<int64_t>(n))) break;
      }
      return f_->Write(offset, data, n);
    }
    Status Read(uint64_t o, size_t n, char* d, size_t* g) override {
      if (st_->Applies(f_->path())) st_->reads.fetch_add(1);
      return f_->Read(o, n, d, g);
    }
    Status Sync() override {
      if (st_->Applies(f_->path())) st_->syncs.fetch_add(1);
      if (st_->Applies(f_->path()) && st_->fail.load()) return Fail("Input/output error");
      return f_->Sync();
    }
    Status Truncate(uint64_t s) override {
      if (st_->Applies(f_->path()) && st_->fail.load()) return Fail("Input/output error");
      return f_->Truncate(s);
    }
    Status Size(uint64_t* s) override { return f_->Size(s); }
    void Preallocate(uint64_t bytes) override { f_->Preallocate(bytes); }
    Status Map(uint64_t o, size_t l, std::unique_ptr<MappedRegion>* out) override {
      return f_->Map(o, l, out);
    }
    const std::string& path() const override { return f_->path(); }
    void WillNeed(uint64_t offset, uint64_t len) override {
      if (st_->Applies(f_->path())) {
        st_->will_need_calls.fetch_add(1);
        st_->will_need_bytes.fetch_add(len);
      }
      f_->WillNeed(offset, len);
    }

   private:
    Status Fail(const char* why) {
      st_->failed.fetch_add(1);
      return Status::IOError(f_->path(), why);
    }
    std::unique_ptr<File> f_;
    std::shared_ptr<State> st_;
  };

  std::unique_ptr<Env> base_;
  std::shared_ptr<State> state_ = std::make_shared<State>();
};

}  // namespace sundial::testing
