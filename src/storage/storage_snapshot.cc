// StorageImpl's online snapshots: a copy of the data dir that a server
// opened on it recovers to the state of one moment (the WAL position taken
// under the WAL's mutex), the way it would recover after a crash then.
//
// What is linked and what is copied (and why that is safe):
// - under the maintenance mutex, so no page is written, no checkpoint or
//   compaction runs and no partition is dropped meanwhile:
//   rollup/: day files (*.rlp) are written whole and renamed into place,
//     never changed: linked. STATE and dirty.log are copied first, before
//     the WAL position is taken: every point after that position's
//     checkpoint is replayed and reported to the rollups again (except
//     what WAL files older than the segment named in STATE hold: those
//     points were read by the build STATE records, or marked in dirty.log,
//     which is therefore taken after STATE), so older rollup state is only
//     more work, never wrong.
//   wal/: finished checkpoints (renamed into place) and segments before
//     the current one are never written again: linked. The current segment
//     is copied up to the position taken.
//   series.log: copied up to its length taken after the WAL position (a
//     series is in the log before any point of it is in the WAL).
//   part/<range>/: "cold" is renamed into place and never changed:
//     linked. "pages" and "index" only grow (an index rewrite is a rename
//     to a new file): copied up to their length now; recovery cuts pages
//     written after the checkpoint back to its marks.
//   files of SnapshotSources (meta.log: annotations, UID and TS meta):
//     their owner captures their bytes right after the WAL position (the
//     meta store writes its live map as a fresh log: its file may be
//     rewritten by a rename at any time, so no length of it is safe to
//     copy); written into the snapshot with the deferred copies.
//   relay/ (per-target WAL positions) is left out on purpose: a position
//     may lie past the WAL cut at the snapshot moment, and a server
//     restored from the snapshot writes new points there, which a copied
//     position would skip. Without a position file each target starts
//     from the restored server's WAL end (README "Backup and restore").
// - Files to copy are first hard-linked under a temporary name (cheap,
//   under the mutex), so the copy itself runs after the mutex is released
//   and a compaction or WAL checkpoint removing the original meanwhile
//   does not matter. Without hard links (another file system) files are
//   copied under the mutex.
// The snapshot is built in <name>.partial and renamed when complete;
// Open() removes a *.partial left by a crash.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>

#include "storage/storage_impl.h"

namespace sundial::storage {
namespace {

constexpr char kPartial[] = ".partial";
constexpr char kLinkSuffix[] = ".snaplink";
constexpr uint64_t kWhole = ~uint64_t{0};
constexpr size_t kCopyChunk = 1 << 20;

bool EndsWith(const std::string& s, const char* suffix) {
  const size_t n = std::strlen(suffix);
  return s.size() >= n && s.compare(s.size() - n, n, suffix) == 0;
}

// A file to copy up to `length` bytes from `src` (a temporary link) to `dst`.
struct CopyJob {
  std::string src;
  std::string dst;
  uint64_t length = 0;
  bool remove_src = false;
};

// A file whose bytes were captured in memory (SnapshotSource), to write.
struct WriteJob {
  std::string dst;
  std::string contents;
};

Status WriteWhole(Env* env, const std::string& dst, const std::string& contents) {
  std::unique_ptr<File> out;
  SUNDIAL_RETURN_IF_ERROR(env->OpenFile(dst, &out));
  SUNDIAL_RETURN_IF_ERROR(out->Truncate(0));
  if (!contents.empty()) SUNDIAL_RETURN_IF_ERROR(out->Write(0, contents.data(), contents.size()));
  return out->Sync();
}

// True if name is one plain path component.
bool PlainFileName(const std::string& name) {
  return !name.empty() && name != "." && name != ".." && name.find('/') == std::string::npos;
}

Status CopyPrefix(Env* env, const std::string& src, const std::string& dst, uint64_t length,
                  uint64_t* copied) {
  std::unique_ptr<File> in, out;
  SUNDIAL_RETURN_IF_ERROR(env->OpenReadOnlyFile(src, &in));
  SUNDIAL_RETURN_IF_ERROR(env->OpenFile(dst, &out));
  SUNDIAL_RETURN_IF_ERROR(out->Truncate(0));
  std::string buf(kCopyChunk, '\0');
  uint64_t off = 0;
  while (off < length) {
    const size_t want = static_cast<size_t>(std::min<uint64_t>(kCopyChunk, length - off));
    size_t got = 0;
    SUNDIAL_RETURN_IF_ERROR(in->Read(off, want, &buf[0], &got));
    if (got == 0) break;  // shorter than length: copy what there is
    SUNDIAL_RETURN_IF_ERROR(out->Write(off, buf.data(), got));
    off += got;
  }
  *copied += off;
  return out->Sync();
}

// Removes dir and everything below it. Ok if it does not exist.
Status RemoveTree(Env* env, const std::string& dir) {
  std::vector<std::string> names;
  if (!env->ListDir(dir, &names).ok()) {
    return env->FileExists(dir) ? env->RemoveFile(dir) : Status::OK();
  }
  for (const std::string& n : names) {
    const std::string path = dir + "/" + n;
    std::vector<std::string> sub;
    if (env->ListDir(path, &sub).ok()) {
      SUNDIAL_RETURN_IF_ERROR(RemoveTree(env, path));
    } else {
      SUNDIAL_RETURN_IF_ERROR(env->RemoveFile(path));
    }
  }
  return env->RemoveDir(dir);
}

// Finished snapshots under root (not the *.partial ones being written).
size_t SnapshotCount(Env* env, const std::string& root) {
  std::vector<std::string> names;
  if (!env->ListDir(root, &names).ok()) return 0;
  return static_cast<size_t>(std::count_if(names.begin(), names.end(), ValidSnapshotName));
}

uint64_t TreeBytes(Env* env, const std::string& path) {
  std::vector<std::string> names;
  if (!env->ListDir(path, &names).ok()) {
    uint64_t size = 0;
    return env->GetFileSize(path, &size).ok() ? size : 0;
  }
  uint64_t total = 0;
  for (const std::string& n : names) total += TreeBytes(env, path + "/" + n);
  return total;
}

// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's
// days_from_civil).
int64_t DaysFromCivil(int64_t y, int64_t m, int64_t d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const int64_t yoe = y - era * 400;
  const int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

}  // namespace

std::string SnapshotName(int64_t ms) {
  const int64_t days = (ms >= 0 ? ms : ms - 86399999) / 86400000;
  const int64_t rem = ms - days * 86400000;
  // civil_from_days
  const int64_t z = days + 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const int64_t doe = z - era * 146097;
  const int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const int64_t mp = (5 * doy + 2) / 153;
  const int64_t d = doy - (153 * mp + 2) / 5 + 1;
  const int64_t m = mp + (mp < 10 ? 3 : -9);
  const int64_t y = yoe + era * 400 + (m <= 2);
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%04lld%02lld%02lldT%02lld%02lld%02lld.%03lldZ",
                static_cast<long long>(y), static_cast<long long>(m), static_cast<long long>(d),
                static_cast<long long>(rem / 3600000), static_cast<long long>(rem / 60000 % 60),
                static_cast<long long>(rem / 1000 % 60), static_cast<long long>(rem % 1000));
  return buf;
}

int64_t SnapshotNameTime(const std::string& name) {
  // YYYYMMDDTHHMMSS.mmmZ, maybe followed by "-<n>".
  static constexpr char kShape[] = "DDDDDDDDTDDDDDD.DDDZ";
  const size_t n = sizeof(kShape) - 1;
  if (name.size() < n) return 0;
  int64_t digits[17];
  size_t k = 0;
  for (size_t i = 0; i < n; ++i) {
    const char c = name[i];
    if (kShape[i] == 'D') {
      if (c < '0' || c > '9') return 0;
      digits[k++] = c - '0';
    } else if (c != kShape[i]) {
      return 0;
    }
  }
  auto num = [&](size_t from, size_t len) {
    int64_t v = 0;
    for (size_t i = from; i < from + len; ++i) v = v * 10 + digits[i];
    return v;
  };
  const int64_t mon = num(4, 2), day = num(6, 2), h = num(8, 2), mi = num(10, 2), s = num(12, 2);
  if (mon < 1 || mon > 12 || day < 1 || day > 31 || h > 23 || mi > 59 || s > 60) return 0;
  return ((DaysFromCivil(num(0, 4), mon, day) * 24 + h) * 60 + mi) * 60000 + s * 1000 +
         num(14, 3);
}

bool ValidSnapshotName(const std::string& name) {
  if (name.empty() || name.size() > 128 || name == "." || name.find("..") != std::string::npos) {
    return false;
  }
  for (char c : name) {
    const bool ok = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                    c == '-' || c == '_' || c == '.';
    if (!ok) return false;
  }
  return !EndsWith(name, kPartial);
}

// Plans a snapshot into tmp: links what never changes, and links under a
// temporary name (or, without hard links, copies now) what is to be copied
// up to a length taken now.
class SnapshotPlanner {
 public:
  SnapshotPlanner(Env* env, std::string tmp, SnapshotInfo* info)
      : env_(env), tmp_(std::move(tmp)), info_(info) {}

  Status Link(const std::string& src, const std::string& rel) {
    const std::string dst = tmp_ + "/" + rel;
    if (env_->LinkFile(src, dst).ok()) {
      ++info_->files_linked;
      return Status::OK();
    }
    return Copy(src, rel, kWhole);
  }
  Status Copy(const std::string& src, const std::string& rel, uint64_t length) {
    CopyJob job;
    job.dst = tmp_ + "/" + rel;
    job.length = length;
    job.src = job.dst + kLinkSuffix;
    ++info_->files_copied;
    if (length != kWhole && env_->LinkFile(src, job.src).ok()) {
      job.remove_src = true;
      jobs_.push_back(std::move(job));
      return Status::OK();
    }
    return CopyPrefix(env_, src, job.dst, length, &info_->bytes_copied);
  }
  // Writes rel with contents later, in Finish() (no engine lock needed).
  void Write(const std::string& rel, std::string contents) {
    ++info_->files_copied;
    writes_.push_back(WriteJob{tmp_ + "/" + rel, std::move(contents)});
  }
  Status Mkdir(const std::string& rel) { return env_->CreateDir(tmp_ + "/" + rel); }
  // Runs the deferred copies and writes (no engine lock needed).
  Status Finish() {
    for (const CopyJob& job : jobs_) {
      SUNDIAL_RETURN_IF_ERROR(CopyPrefix(env_, job.src, job.dst, job.length, &info_->bytes_copied));
      if (job.remove_src) SUNDIAL_RETURN_IF_ERROR(env_->RemoveFile(job.src));
    }
    jobs_.clear();
    for (const WriteJob& job : writes_) {
      SUNDIAL_RETURN_IF_ERROR(WriteWhole(env_, job.dst, job.contents));
      info_->bytes_copied += job.contents.size();
    }
    writes_.clear();
    return Status::OK();
  }

 private:
  Env* const env_;
  const std::string tmp_;
  SnapshotInfo* const info_;
  std::vector<CopyJob> jobs_;
  std::vector<WriteJob> writes_;
};

Status StorageImpl::Snapshot(const std::string& requested,
                             const std::vector<SnapshotSource*>& sources, SnapshotInfo* out) {
  for (SnapshotSource* source : sources) {
    const std::string file = source->SnapshotFileName();
    if (!PlainFileName(file)) return Status::InvalidArgument("snapshot source file name", file);
  }
  MutexLock one_at_a_time(&snapshot_mu_);
  const uint32_t limit = options_.max_snapshots;
  if (limit == 0) return Status::ResourceExhausted("snapshots are turned off (max_snapshots = 0)");
  const size_t existing = SnapshotCount(env_.get(), SnapshotRoot());
  if (existing >= limit) {
    return Status::ResourceExhausted("snapshot limit reached: " + std::to_string(existing) +
                                     " exist (max_snapshots = " + std::to_string(limit) +
                                     "); remove one first");
  }
  const std::string root = SnapshotRoot();
  SUNDIAL_RETURN_IF_ERROR(env_->CreateDir(root));
  // One reading of the clock for the name and created_ms, so that a listing
  // (which reads the time back from the name) agrees with this answer.
  const int64_t now_ms = env_->NowMs();
  std::string name = requested;
  if (name.empty()) {
    // The time, made unique.
    const std::string base = SnapshotName(now_ms);
    name = base;
    for (int i = 1; env_->FileExists(root + "/" + name) || env_->FileExists(root + "/" + name + kPartial); ++i) {
      name = base + "-" + std::to_string(i);
    }
  }
  if (!ValidSnapshotName(name)) return Status::InvalidArgument("invalid snapshot name", name);
  const std::string final_dir = root + "/" + name;
  const std::string tmp = final_dir + kPartial;
  if (env_->FileExists(final_dir)) return Status::Busy("snapshot exists", name);
  SUNDIAL_RETURN_IF_ERROR(RemoveTree(env_.get(), tmp));
  SnapshotInfo info;
  info.name = name;
  info.path = final_dir;
  info.created_ms = now_ms;
  SnapshotPlanner plan(env_.get(), tmp, &info);
  Status s = env_->CreateDir(tmp);
  if (s.ok()) s = PlanSnapshot(sources, &plan, &info);
  if (s.ok()) s = plan.Finish();
  for (const char* sub : {"", "/wal", "/rollup"}) {
    if (s.ok() && env_->FileExists(tmp + sub)) s = env_->SyncDir(tmp + sub);
  }
  if (s.ok()) s = env_->RenameFile(tmp, final_dir);
  if (s.ok()) s = env_->SyncDir(root);
  if (!s.ok()) {
    (void)RemoveTree(env_.get(), tmp);
    return s.WithContext("snapshot " + name);
  }
  info.bytes = TreeBytes(env_.get(), final_dir);
  *out = std::move(info);
  return Status::OK();
}

Status StorageImpl::PlanSnapshot(const std::vector<SnapshotSource*>& sources,
                                 SnapshotPlanner* plan, SnapshotInfo* info) {
  const std::string& dir = options_.data_dir;
  MutexLock run(&maint_run_mu_);
  std::vector<std::string> names;
  if (env_->ListDir(dir + "/rollup", &names).ok()) {
    SUNDIAL_RETURN_IF_ERROR(plan->Mkdir("rollup"));
    // STATE before dirty.log (byte order): the WAL segment STATE names is
    // only written after the marks of older points are in dirty.log.
    std::sort(names.begin(), names.end());
    for (const std::string& n : names) {
      const std::string src = dir + "/rollup/" + n;
      if (EndsWith(n, ".rlp")) {
        SUNDIAL_RETURN_IF_ERROR(plan->Link(src, "rollup/" + n));
      } else if (n == "STATE" || n == "dirty.log") {
        uint64_t size = 0;
        if (env_->GetFileSize(src, &size).ok()) {
          SUNDIAL_RETURN_IF_ERROR(plan->Copy(src, "rollup/" + n, size));
        }
      }
    }
  }
  // The moment of the snapshot. Appends wait only for this.
  const auto t0 = std::chrono::steady_clock::now();
  uint64_t seq = 0, wal_end = 0;
  wal_->Position(&seq, &wal_end);
  const uint64_t dict_end = dict_->LogSize();
  info->pause_us = std::chrono::duration_cast<std::chrono::microseconds>(
                       std::chrono::steady_clock::now() - t0)
                       .count();

  SUNDIAL_RETURN_IF_ERROR(plan->Mkdir("wal"));
  names.clear();
  SUNDIAL_RETURN_IF_ERROR(env_->ListDir(dir + "/wal", &names));
  for (const std::string& n : names) {
    bool ckpt = false;
    uint64_t file_seq = 0;
    if (!ParseWalFileName(n, &ckpt, &file_seq)) continue;  // *.tmp: unfinished
    if (ckpt || file_seq < seq) {
      SUNDIAL_RETURN_IF_ERROR(plan->Link(dir + "/wal/" + n, "wal/" + n));
    } else if (file_seq == seq) {
      SUNDIAL_RETURN_IF_ERROR(plan->Copy(dir + "/wal/" + n, "wal/" + n, wal_end));
    }
  }
  SUNDIAL_RETURN_IF_ERROR(plan->Copy(dir + "/series.log", "series.log", dict_end));
  for (SnapshotSource* source : sources) {
    std::string contents;
    SUNDIAL_RETURN_IF_ERROR(source->CaptureSnapshot(&contents));
    plan->Write(source->SnapshotFileName(), std::move(contents));
  }
  SUNDIAL_RETURN_IF_ERROR(plan->Mkdir("part"));
  names.clear();
  if (!env_->ListDir(dir + "/part", &names).ok()) return Status::OK();
  for (const std::string& p : names) {
    std::vector<std::string> files;
    if (!env_->ListDir(dir + "/part/" + p, &files).ok()) continue;
    const std::string rel = "part/" + p;
    SUNDIAL_RETURN_IF_ERROR(plan->Mkdir(rel));
    for (const std::string& f : files) {
      const std::string src = dir + "/" + rel + "/" + f;
      if (f == "cold") {
        SUNDIAL_RETURN_IF_ERROR(plan->Link(src, rel + "/" + f));
      } else if (f == "pages" || f == "index") {
        uint64_t size = 0;
        SUNDIAL_RETURN_IF_ERROR(env_->GetFileSize(src, &size));
        SUNDIAL_RETURN_IF_ERROR(plan->Copy(src, rel + "/" + f, size));
      }
    }
  }
  return Status::OK();
}

std::vector<SnapshotInfo> StorageImpl::ListSnapshots() {
  std::vector<SnapshotInfo> out;
  std::vector<std::string> names;
  if (!env_->ListDir(SnapshotRoot(), &names).ok()) return out;
  std::sort(names.begin(), names.end());
  for (const std::string& n : names) {
    if (!ValidSnapshotName(n)) continue;  // *.partial: being written
    SnapshotInfo info;
    info.name = n;
    info.path = SnapshotRoot() + "/" + n;
    info.created_ms = SnapshotNameTime(n);
    info.bytes = TreeBytes(env_.get(), info.path);
    out.push_back(std::move(info));
  }
  return out;
}

Status StorageImpl::RemoveSnapshot(const std::string& name) {
  if (!ValidSnapshotName(name)) return Status::InvalidArgument("invalid snapshot name", name);
  const std::string path = SnapshotRoot() + "/" + name;
  if (!env_->FileExists(path)) return Status::NotFound("no such snapshot", name);
  SUNDIAL_RETURN_IF_ERROR(RemoveTree(env_.get(), path));
  return env_->SyncDir(SnapshotRoot());
}

void StorageImpl::RemovePartialSnapshots() {
  std::vector<std::string> names;
  if (!env_->ListDir(SnapshotRoot(), &names).ok()) return;
  for (const std::string& n : names) {
    if (!EndsWith(n, kPartial)) continue;
    const Status s = RemoveTree(env_.get(), SnapshotRoot() + "/" + n);
    AddWarning(s.ok() ? "removed the unfinished snapshot " + n
                      : "could not remove the unfinished snapshot " + n + ": " + s.ToString());
  }
}

}  // namespace sundial::storage
