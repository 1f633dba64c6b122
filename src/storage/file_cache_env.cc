#include "storage/file_cache_env.h"

#include <utility>

namespace sundial::storage {

struct FileCacheEnv::Entry {
  std::string path;
  bool read_only = false;
  std::shared_ptr<File> file;         // null while closed; guarded by the env's mu_
  std::list<Entry*>::iterator pos;    // in lru_ while file is set
};

class FileCacheEnv::CachedFile final : public File {
 public:
  CachedFile(FileCacheEnv* env, std::unique_ptr<Entry> e) : env_(env), e_(std::move(e)) {}
  ~CachedFile() override { env_->Forget(e_.get()); }

  Status Write(uint64_t offset, const char* data, size_t n) override {
    std::shared_ptr<File> f;
    SUNDIAL_RETURN_IF_ERROR(env_->Acquire(e_.get(), &f));
    return f->Write(offset, data, n);
  }
  Status Read(uint64_t offset, size_t n, char* dst, size_t* got) override {
    *got = 0;
    std::shared_ptr<File> f;
    SUNDIAL_RETURN_IF_ERROR(env_->Acquire(e_.get(), &f));
    return f->Read(offset, n, dst, got);
  }
  Status Sync() override {
    std::shared_ptr<File> f;
    SUNDIAL_RETURN_IF_ERROR(env_->Acquire(e_.get(), &f));
    return f->Sync();
  }
  Status Truncate(uint64_t size) override {
    std::shared_ptr<File> f;
    SUNDIAL_RETURN_IF_ERROR(env_->Acquire(e_.get(), &f));
    return f->Truncate(size);
  }
  Status Size(uint64_t* size) override {
    std::shared_ptr<File> f;
    SUNDIAL_RETURN_IF_ERROR(env_->Acquire(e_.get(), &f));
    return f->Size(size);
  }
  Status Map(uint64_t offset, size_t len, std::unique_ptr<MappedRegion>* out) override {
    std::shared_ptr<File> f;
    SUNDIAL_RETURN_IF_ERROR(env_->Acquire(e_.get(), &f));
    return f->Map(offset, len, out);
  }
  void WillNeed(uint64_t offset, uint64_t len) override {
    std::shared_ptr<File> f;
    if (env_->Acquire(e_.get(), &f).ok()) f->WillNeed(offset, len);
  }
  const std::string& path() const override { return e_->path; }

 private:
  FileCacheEnv* const env_;
  const std::unique_ptr<Entry> e_;
};

FileCacheEnv::FileCacheEnv(Env* base, std::string cached, size_t capacity)
    : EnvWrapper(base), cached_(std::move(cached)), capacity_(capacity < 1 ? 1 : capacity) {}

FileCacheEnv::~FileCacheEnv() = default;

Status FileCacheEnv::Wrap(const std::string& path, bool read_only, std::unique_ptr<File> first,
                          std::unique_ptr<File>* out) {
  auto e = std::make_unique<Entry>();
  e->path = path;
  e->read_only = read_only;
  Entry* raw = e.get();
  out->reset(new CachedFile(this, std::move(e)));
  // The descriptor just opened becomes the entry's first cached one.
  std::vector<std::shared_ptr<File>> closing;  // closed outside the lock
  {
    MutexLock lock(&mu_);
    raw->file = std::move(first);
    lru_.push_front(raw);
    raw->pos = lru_.begin();
    TrimToCapacity(&closing);
  }
  return Status::OK();
}

void FileCacheEnv::TrimToCapacity(std::vector<std::shared_ptr<File>>* closing) {
  while (lru_.size() > capacity_) {
    Entry* victim = lru_.back();
    lru_.pop_back();
    closing->push_back(std::move(victim->file));
    ++closes_;
  }
}

Status FileCacheEnv::OpenFile(const std::string& path, std::unique_ptr<File>* out) {
  return OpenThrough(&Env::OpenFile, path, false, out);
}

Status FileCacheEnv::OpenExistingFile(const std::string& path, std::unique_ptr<File>* out) {
  return OpenThrough(&Env::OpenExistingFile, path, false, out);
}

Status FileCacheEnv::OpenReadOnlyFile(const std::string& path, std::unique_ptr<File>* out) {
  return OpenThrough(&Env::OpenReadOnlyFile, path, true, out);
}

Status FileCacheEnv::OpenThrough(OpenFn open, const std::string& path, bool read_only,
                                 std::unique_ptr<File>* out) {
  std::unique_ptr<File> f;
  SUNDIAL_RETURN_IF_ERROR((target()->*open)(path, &f));
  if (path.compare(0, cached_.size(), cached_) != 0) {
    *out = std::move(f);
    return Status::OK();
  }
  return Wrap(path, read_only, std::move(f), out);
}

Status FileCacheEnv::Acquire(Entry* e, std::shared_ptr<File>* out) {
  {
    MutexLock lock(&mu_);
    if (e->file) {
      lru_.splice(lru_.begin(), lru_, e->pos);
      *out = e->file;
      return Status::OK();
    }
  }
  // Opened outside the lock; if another thread opened it meanwhile, the
  // copy opened here is used once and closed.
  std::unique_ptr<File> f;
  SUNDIAL_RETURN_IF_ERROR(e->read_only ? target()->OpenReadOnlyFile(e->path, &f)
                                       : target()->OpenExistingFile(e->path, &f));
  std::vector<std::shared_ptr<File>> closing;  // closed outside the lock
  MutexLock lock(&mu_);
  if (e->file) {
    lru_.splice(lru_.begin(), lru_, e->pos);
    *out = e->file;
    closing.push_back(std::shared_ptr<File>(std::move(f)));
    return Status::OK();
  }
  e->file = std::shared_ptr<File>(std::move(f));
  lru_.push_front(e);
  e->pos = lru_.begin();
  *out = e->file;
  TrimToCapacity(&closing);
  return Status::OK();
}

void FileCacheEnv::Forget(Entry* e) {
  std::shared_ptr<File> f;
  MutexLock lock(&mu_);
  if (e->file) {
    lru_.erase(e->pos);
    f = std::move(e->file);
  }
}

size_t FileCacheEnv::open_count() {
  MutexLock lock(&mu_);
  return lru_.size();
}

uint64_t FileCacheEnv::closes() {
  MutexLock lock(&mu_);
  return closes_;
}

}  // namespace sundial::storage
