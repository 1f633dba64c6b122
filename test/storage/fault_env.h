// FaultInjectionEnv: an Env that forwards to another and can fail writes as
// a full disk would, for tests of the engine's error paths.
#pragma once

#include <atomic>
#include <memory>
#include <string>

#include "storage/env.h"

namespace sundial::storage::testing {

class FaultInjectionEnv final : public Env {
 public:
  explicit FaultInjectionEnv(std::unique_ptr<Env> base) : base_(std::move(base)) {}

  // Writes of more than `bytes` further bytes fail with "No space left on
  // device" (partial writes are not simulated). Negative: unlimited.
  void SetSpace(int64_t bytes) { space_->store(bytes); }

  Status OpenFile(const std::string& path, std::unique_ptr<File>* out) override {
    std::unique_ptr<File> f;
    SUNDIAL_RETURN_IF_ERROR(base_->OpenFile(path, &f));
    out->reset(new FaultFile(std::move(f), space_));
    return Status::OK();
  }
  Status ReadFileToString(const std::string& p, std::string* out) override {
    return base_->ReadFileToString(p, out);
  }
  Status ListDir(const std::string& d, std::vector<std::string>* n) override {
    return base_->ListDir(d, n);
  }
  Status CreateDir(const std::string& d) override { return base_->CreateDir(d); }
  Status RemoveFile(const std::string& p) override { return base_->RemoveFile(p); }
  Status RemoveDir(const std::string& d) override { return base_->RemoveDir(d); }
  Status RenameFile(const std::string& a, const std::string& b) override {
    return base_->RenameFile(a, b);
  }
  Status SyncDir(const std::string& d) override { return base_->SyncDir(d); }
  bool FileExists(const std::string& p) override { return base_->FileExists(p); }
  int64_t NowMs() override { return base_->NowMs(); }

 private:
  class FaultFile final : public File {
   public:
    FaultFile(std::unique_ptr<File> f, std::shared_ptr<std::atomic<int64_t>> space)
        : f_(std::move(f)), space_(std::move(space)) {}
    Status Write(uint64_t offset, const char* data, size_t n) override {
      int64_t left = space_->load();
      while (left >= 0) {
        if (static_cast<uint64_t>(left) < n) {
          return Status::IOError(f_->path(), "No space left on device");
        }
        if (space_->compare_exchange_weak(left, left - static_cast<int64_t>(n))) break;
      }
      return f_->Write(offset, data, n);
    }
    Status Read(uint64_t o, size_t n, char* d, size_t* g) override { return f_->Read(o, n, d, g); }
    Status Sync() override { return f_->Sync(); }
    Status Truncate(uint64_t s) override { return f_->Truncate(s); }
    Status Size(uint64_t* s) override { return f_->Size(s); }
    Status Map(uint64_t o, size_t l, std::unique_ptr<MappedRegion>* out) override {
      return f_->Map(o, l, out);
    }
    const std::string& path() const override { return f_->path(); }

   private:
    std::unique_ptr<File> f_;
    std::shared_ptr<std::atomic<int64_t>> space_;
  };

  std::unique_ptr<Env> base_;
  std::shared_ptr<std::atomic<int64_t>> space_ = std::make_shared<std::atomic<int64_t>>(-1);
};

}  // namespace sundial::storage::testing
