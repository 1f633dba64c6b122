#include "rollup/file_util.h"

namespace sundial::rollup {
namespace {

std::string DirName(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

}  // namespace

Status PReadExact(File* file, uint64_t offset, size_t n, std::string* out) {
  out->resize(n);
  size_t got = 0;
  SUNDIAL_RETURN_IF_ERROR(file->Read(offset, n, out->data(), &got));
  if (got != n) return Status::Corruption("rollup file truncated", file->path());
  return Status::OK();
}

Status ReplaceFile(Env* env, const std::string& path, std::string_view data) {
  const std::string tmp = path + ".tmp";
  {
    std::unique_ptr<File> f;
    SUNDIAL_RETURN_IF_ERROR(env->OpenFile(tmp, &f));
    SUNDIAL_RETURN_IF_ERROR(f->Truncate(0));
    SUNDIAL_RETURN_IF_ERROR(f->Write(0, data.data(), data.size()));
    SUNDIAL_RETURN_IF_ERROR(f->Sync());
  }
  return RenameDurable(env, tmp, path);
}

Status RenameDurable(Env* env, const std::string& tmp, const std::string& path) {
  SUNDIAL_RETURN_IF_ERROR(env->RenameFile(tmp, path));
  return env->SyncDir(DirName(path));
}

Status RemoveFileIfExists(Env* env, const std::string& path) {
  const Status s = env->RemoveFile(path);
  if (s.ok() || s.IsNotFound()) return Status::OK();
  return s;
}

Status ListDir(Env* env, const std::string& dir,
               std::vector<std::pair<std::string, uint64_t>>* out) {
  out->clear();
  std::vector<std::string> names;
  SUNDIAL_RETURN_IF_ERROR(env->ListDir(dir, &names));
  for (std::string& name : names) {
    uint64_t size = 0;
    if (!env->GetFileSize(dir + "/" + name, &size).ok()) size = 0;
    out->emplace_back(std::move(name), size);
  }
  return Status::OK();
}

}  // namespace sundial::rollup
