#include "storage/wal.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "storage/record_log.h"
#include "storage/tombstones.h"
#include "sundial/common/coding.h"
#include "sundial/common/decimal.h"
#include "sundial/compress/page_iterator.h"

namespace sundial::storage {
namespace {

constexpr const char* kSegmentMagic = kWalSegmentMagic;
constexpr char kCheckpointMagic[] = "SUNDCKP1";
constexpr size_t kCheckpointChunk = 256 * 1024;

std::string SeqName(uint64_t seq, const char* ext) {
  char buf[48];
  std::snprintf(buf, sizeof(buf), "%020llu%s", static_cast<unsigned long long>(seq), ext);
  return buf;
}

// Parses "<20 digits><ext>"; false if name is not of that shape.
bool ParseSeqName(const std::string& name, const char* ext, uint64_t* seq) {
  const size_t ext_len = std::strlen(ext);
  if (name.size() != 20 + ext_len || name.compare(20, ext_len, ext) != 0) return false;
  uint64_t v = 0;
  for (size_t i = 0; i < 20; ++i) {
    if (name[i] < '0' || name[i] > '9') return false;
    v = v * 10 + static_cast<uint64_t>(name[i] - '0');
  }
  *seq = v;
  return true;
}

}  // namespace

std::string WalSegmentName(uint64_t seq) { return SeqName(seq, ".wal"); }
bool ParseWalSegmentName(const std::string& name, uint64_t* seq) {
  return ParseSeqName(name, ".wal", seq);
}

namespace {

constexpr int kMaxWalScale = 9;
constexpr double kTwo53 = 9007199254740992.0;
constexpr uint64_t kCodeInt = 0, kCodeFloat = 1, kCodeDecimal = 2;

// Finds a short decimal form of v (sundial/common/decimal.h) of scale at
// most kMaxWalScale, trying *scale (the last one found) first.
bool AsDecimal(double v, int* scale, int64_t* m) {
  if (DecimalFits(v, *scale, m)) return true;
  // A short decimal is an integer at scale 9, give or take rounding.
  const double x9 = v * kPow10[kMaxWalScale];
  if (std::fabs(x9) < kTwo53 && std::fabs(x9 - std::nearbyint(x9)) > 1e-3) return false;
  const int s = MinDecimalScale(v, 0, kMaxWalScale, m);
  if (s < 0) return false;
  *scale = s;
  return true;
}

// EncodeVarint64, inlined: a batch writes three per point, most of them one
// or two bytes long.
inline char* PutVarint(char* dst, uint64_t v) {
  auto* p = reinterpret_cast<unsigned char*>(dst);
  while (v >= 0x80) {
    *p++ = static_cast<unsigned char>(v | 0x80);
    v >>= 7;
  }
  *p++ = static_cast<unsigned char>(v);
  return reinterpret_cast<char*>(p);
}

}  // namespace

void EncodeWalBatch(const SeriesPoint* points, size_t n, std::string* out) {
  // Worst case per point: 10 (id and code) + 10 (t) + 10 (value).
  out->resize(kLogRecordHeaderSize + kMaxVarint32Bytes + n * 30);
  char* const base = &(*out)[0];
  char* p = EncodeVarint32(base + kLogRecordHeaderSize, static_cast<uint32_t>(n));
  Timestamp prev = 0;
  SeriesId prev_series = 0;
  int scale = 2;
  for (size_t i = 0; i < n; ++i) {
    const SeriesPoint& pt = points[i];
    uint64_t code = kCodeInt;
    int64_t m = 0;
    if (!pt.v.is_int()) {
      code = AsDecimal(pt.v.float_value(), &scale, &m)
                 ? kCodeDecimal + static_cast<uint64_t>(scale)
                 : kCodeFloat;
    }
    const int64_t dseries = static_cast<int64_t>(pt.series) - static_cast<int64_t>(prev_series);
    prev_series = pt.series;
    p = PutVarint(p, (ZigZagEncode64(dseries) << 4) | code);
    p = PutVarint(p, ZigZagEncode64(static_cast<int64_t>(static_cast<uint64_t>(pt.t) -
                                                         static_cast<uint64_t>(prev))));
    prev = pt.t;
    if (code == kCodeInt) {
      p = PutVarint(p, ZigZagEncode64(pt.v.int_value()));
    } else if (code == kCodeFloat) {
      EncodeFixed64(p, DoubleToBits(pt.v.float_value()));
      p += 8;
    } else {
      p = PutVarint(p, ZigZagEncode64(m));
    }
  }
  out->resize(static_cast<size_t>(p - base));
  FinishLogRecord(out, kWalPointsRecord);
}

namespace {

// Decodes a batch of any version: 1 (type 1), 2 (type 4) or 3 (type 7).
bool DecodeBatch(std::string_view in, int version,
                 const std::function<void(const SeriesPoint&)>& fn) {
  uint32_t n = 0;
  if (!GetVarint32(&in, &n)) return false;
  Timestamp prev = 0;
  int64_t prev_series = 0;
  const unsigned shift = version == 1 ? 1 : 4;
  for (uint32_t i = 0; i < n; ++i) {
    uint64_t tag = 0, dt = 0;
    if (!GetVarint64(&in, &tag) || !GetVarint64(&in, &dt)) return false;
    const uint64_t code = tag & ((uint64_t{1} << shift) - 1);
    int64_t series = 0;
    if (version < 3) {
      if ((tag >> shift) > kInvalidSeriesId) return false;
      series = static_cast<int64_t>(tag >> shift);
    } else {
      // |difference| < 2^60 (a varint64 shifted by 4): no overflow.
      series = prev_series + ZigZagDecode64(tag >> shift);
      if (series < 0 || series > int64_t{kInvalidSeriesId}) return false;
    }
    if (code > kCodeDecimal + kMaxWalScale) return false;
    prev_series = series;
    SeriesPoint pt;
    pt.series = static_cast<SeriesId>(series);
    pt.t = static_cast<Timestamp>(static_cast<uint64_t>(prev) +
                                  static_cast<uint64_t>(ZigZagDecode64(dt)));
    prev = pt.t;
    if (code == kCodeFloat) {
      uint64_t bits = 0;
      if (!GetFixed64(&in, &bits)) return false;
      pt.v = Value::Float(BitsToDouble(bits));
    } else {
      uint64_t zz = 0;
      if (!GetVarint64(&in, &zz)) return false;
      const int64_t x = ZigZagDecode64(zz);
      pt.v = code == kCodeInt ? Value::Int(x)
                              : Value::Float(DecimalValue(x, static_cast<int>(code - kCodeDecimal)));
    }
    fn(pt);
  }
  return in.empty();
}

}  // namespace

bool IsWalPointsRecord(uint8_t type) {
  return type == kWalPointsRecord || type == kWalPointsRecordV2 || type == kWalPointsRecordV1;
}

bool DecodeWalPoints(uint8_t type, std::string_view payload,
                     const std::function<void(const SeriesPoint&)>& fn) {
  switch (type) {
    case kWalPointsRecord:
      return DecodeBatch(payload, 3, fn);
    case kWalPointsRecordV2:
      return DecodeBatch(payload, 2, fn);
    case kWalPointsRecordV1:
      return DecodeBatch(payload, 1, fn);
    default:
      return false;
  }
}

bool DecodeCheckpointPage(std::string_view in,
                          const std::function<void(const SeriesPoint&)>& fn) {
  uint32_t id = 0;
  if (!GetVarint32(&in, &id) || id == kInvalidSeriesId || in.empty()) return false;
  if (static_cast<uint8_t>(in[0]) > 2) return false;
  in.remove_prefix(1);
  compress::PageIterator it(in);
  while (it.Next()) fn(SeriesPoint{id, it.t(), it.v()});
  return it.status().ok();
}

Wal::Wal(Env* env, std::string dir, uint64_t segment_bytes, WalRetention* retention)
    : env_(env), dir_(std::move(dir)), segment_bytes_(segment_bytes), retention_(retention) {}

bool ParseWalFileName(const std::string& name, bool* checkpoint, uint64_t* seq) {
  *checkpoint = ParseSeqName(name, ".ckpt", seq);
  return *checkpoint || ParseSeqName(name, ".wal", seq);
}

std::string Wal::SegmentPath(uint64_t seq) const { return dir_ + "/" + SeqName(seq, ".wal"); }
std::string Wal::CheckpointPath(uint64_t seq) const {
  return dir_ + "/" + SeqName(seq, ".ckpt");
}

Status Wal::ListFiles(std::vector<uint64_t>* segments, std::vector<uint64_t>* checkpoints) {
  std::vector<std::string> names;
  SUNDIAL_RETURN_IF_ERROR(env_->ListDir(dir_, &names));
  for (const auto& name : names) {
    uint64_t seq = 0;
    if (ParseSeqName(name, ".wal", &seq)) {
      segments->push_back(seq);
    } else if (ParseSeqName(name, ".ckpt", &seq)) {
      checkpoints->push_back(seq);
    } else if (name.size() > 4 && name.compare(name.size() - 4, 4, ".tmp") == 0) {
      (void)env_->RemoveFile(dir_ + "/" + name);  // an unfinished checkpoint
    }
  }
  std::sort(segments->begin(), segments->end());
  std::sort(checkpoints->begin(), checkpoints->end());
  return Status::OK();
}

void Wal::ReplayFile(const std::string& path, std::string_view magic,
                     const std::function<void(uint8_t, std::string_view)>& fn,
                     std::vector<std::string>* warnings, uint64_t* corrupt_records) {
  std::unique_ptr<File> file;
  uint64_t size = 0;
  Status s = env_->OpenFile(path, &file);
  if (s.ok()) s = file->Size(&size);
  if (!s.ok()) {
    warnings->push_back(s.ToString());
    ++*corrupt_records;
    return;
  }
  if (size == 0) return;  // created but never written: nothing lost
  LogReader reader(file.get(), size, magic);
  // Segments are allocated ahead; checkpoints are written whole and synced.
  s = magic == kSegmentMagic ? reader.OpenAllocated() : reader.Open();
  if (s.IsCorruption()) {
    // Each record has its own CRC: replay the intact ones after the header.
    warnings->push_back(s.ToString() + "; replaying the records after it");
    ++*corrupt_records;
    reader.OpenSkippingHeader();
  } else if (!s.ok()) {
    warnings->push_back(s.ToString() + "; file skipped");
    ++*corrupt_records;
    return;
  }
  uint8_t type;
  std::string_view payload;
  const bool checkpoint = magic == kCheckpointMagic;
  while (reader.Next(&type, &payload)) {
    if (!IsWalPointsRecord(type) && type != kWalDeleteRecord && type != kWalSeriesRecord &&
        !(checkpoint && (type == kWalPageRecord || type == kWalMarksRecord ||
                         type == kWalDeleteStateRecord))) {
      warnings->push_back(path + ": unknown record type skipped");
      ++*corrupt_records;
      continue;
    }
    fn(type, payload);
  }
  if (!reader.status().ok()) warnings->push_back(reader.status().ToString());
  for (const auto& w : reader.skipped()) warnings->push_back(w);
  *corrupt_records += reader.skipped().size();
}

Status Wal::ReadCheckpointMarks(std::string* payload, bool* found) {
  *found = false;
  SUNDIAL_RETURN_IF_ERROR(env_->CreateDir(dir_));
  std::vector<uint64_t> segments, checkpoints;
  SUNDIAL_RETURN_IF_ERROR(ListFiles(&segments, &checkpoints));
  if (checkpoints.empty()) return Status::OK();
  std::unique_ptr<File> file;
  uint64_t size = 0;
  if (!env_->OpenFile(CheckpointPath(checkpoints.back()), &file).ok() || !file->Size(&size).ok()) {
    return Status::OK();  // Recover reports it
  }
  LogReader reader(file.get(), size, kCheckpointMagic);
  uint8_t type = 0;
  std::string_view rec;
  if (!reader.Open().ok() || !reader.Next(&type, &rec) || type != kWalMarksRecord ||
      !reader.skipped().empty()) {
    return Status::OK();
  }
  payload->assign(rec.data(), rec.size());
  *found = true;
  return Status::OK();
}

Status Wal::Recover(const std::function<void(uint8_t, std::string_view)>& fn,
                    std::vector<std::string>* warnings, uint64_t* corrupt_records,
                    Status* open_error,
                    const std::function<void(uint64_t, bool)>& on_file) {
  SUNDIAL_RETURN_IF_ERROR(env_->CreateDir(dir_));
  std::vector<uint64_t> segments, checkpoints;
  SUNDIAL_RETURN_IF_ERROR(ListFiles(&segments, &checkpoints));
  uint64_t start = 0;
  if (!checkpoints.empty()) {
    start = checkpoints.back();
    if (on_file) on_file(start, true);
    ReplayFile(CheckpointPath(start), kCheckpointMagic, fn, warnings, corrupt_records);
  }
  uint64_t max_seq = start;
  for (uint64_t seq : segments) {
    max_seq = std::max(max_seq, seq);
    if (seq < start) {
      // Covered by the checkpoint; kept only while retention needs it.
      if (!Retained(seq)) (void)env_->RemoveFile(SegmentPath(seq));
      continue;
    }
    if (on_file) on_file(seq, false);
    ReplayFile(SegmentPath(seq), kSegmentMagic, fn, warnings, corrupt_records);
  }
  AcquireSyncToken();
  MutexLock lock(&mu_);
  seq_ = max_seq;  // EnsureOpen() retries with seq_ + 1 if this fails
  Status s = OpenSegment(max_seq + 1);
  ReleaseSyncToken(0);
  if (!s.ok()) *open_error = s;
  return Status::OK();
}

Status Wal::EnsureOpen() {
  AcquireSyncToken();
  Status s;
  {
    MutexLock lock(&mu_);
    if (!file_) s = OpenSegment(seq_ + 1);
  }
  ReleaseSyncToken(0);
  return s;
}

Status Wal::OpenSegment(uint64_t seq) {
  std::unique_ptr<File> f;
  SUNDIAL_RETURN_IF_ERROR(env_->OpenFile(SegmentPath(seq), &f));
  const std::string h = LogFileHeader(kSegmentMagic);
  // The header reaches the disk with the first fsync of the segment. A
  // power cut before it can leave the file allocated ahead but all zeros,
  // header included, which replay reads as never written
  // (LogReader::OpenAllocated).
  Status s = f->Truncate(0);
  if (s.ok()) s = f->Write(0, h.data(), h.size());
  if (s.ok()) s = env_->SyncDir(dir_);
  if (!s.ok()) {
    f.reset();
    (void)env_->RemoveFile(SegmentPath(seq));
    return s.WithContext("new WAL segment");
  }
  // The segment being closed gives back the blocks reserved past its end,
  // so that segments kept for the relay hold only what they contain. It is
  // cut at the end of the block its records end in: cut inside that block
  // (already on disk), ext4 would zero the rest of it and so write it
  // again. Readers pass over those zeros (record_log.h).
  if (file_) {
    const uint64_t block_end = (offset_ + kLogBlockSize - 1) / kLogBlockSize * kLogBlockSize;
    (void)file_->Truncate(std::max(offset_, std::min(block_end, reserved_)));
  }
  file_ = std::move(f);  // REQUIRES (callers): the sync token is held
  seq_ = seq;
  offset_ = h.size();
  reserved_ = 0;
  wants_rotation_.store(false, std::memory_order_relaxed);
  return Status::OK();
}

Status Wal::Append(const std::string& record, uint64_t* lsn) {
  MutexLock lock(&mu_);
  if (!file_) return Status::Unavailable("WAL is not open");
  uint64_t at = offset_;
  const uint64_t in_block = at % kLogBlockSize;
  // A record that would straddle two blocks starts at the next one instead
  // when the tail block is already on disk: the fsync after it then writes
  // one block, not two (wal.h).
  if (in_block != 0 && in_block + record.size() > kLogBlockSize &&
      record.size() <= kLogBlockSize && synced_lsn_.load(std::memory_order_relaxed) >= lsn_) {
    at += kLogBlockSize - in_block;
  }
  if (at + record.size() > reserved_) {
    // Not past where the segment will be rotated (unless this record goes
    // there itself).
    reserved_ = std::max(std::min(at + kReserveAhead, segment_bytes_), at + record.size());
    file_->Preallocate(reserved_);
  }
  Status s = file_->Write(at, record.data(), record.size());
  if (!s.ok()) {
    write_errors_.fetch_add(1, std::memory_order_relaxed);
    (void)file_->Truncate(offset_);  // best effort: drop a torn record
    reserved_ = offset_;
    return s.WithContext("WAL write");
  }
  lsn_ += at + record.size() - offset_;
  offset_ = at + record.size();
  *lsn = lsn_;
  bytes_written_.fetch_add(record.size(), std::memory_order_relaxed);
  if (offset_ >= segment_bytes_) wants_rotation_.store(true, std::memory_order_relaxed);
  return Status::OK();
}

Status Wal::SyncTo(uint64_t lsn) {
  for (;;) {
    {
      MutexLock sl(&sync_mu_);
      while (synced_lsn_ < lsn && syncing_) sync_cv_.Wait();
      if (synced_lsn_ >= lsn) return Status::OK();
      syncing_ = true;  // the token: this thread fsyncs for all waiting ones
    }
    // The token keeps file_ from being replaced meanwhile.
    File* f = nullptr;
    uint64_t target = 0;
    {
      MutexLock lock(&mu_);
      f = file_.get();
      target = lsn_;
    }
    Status s = f != nullptr ? f->Sync() : Status::Unavailable("WAL is not open");
    syncs_.fetch_add(1, std::memory_order_relaxed);
    ReleaseSyncToken(s.ok() ? target : 0);
    if (!s.ok()) return s.WithContext("WAL fsync");
  }
}

Status Wal::Sync() {
  uint64_t lsn = 0;
  {
    MutexLock lock(&mu_);
    lsn = lsn_;
  }
  return SyncTo(lsn);
}

void Wal::AcquireSyncToken() {
  MutexLock sl(&sync_mu_);
  while (syncing_) sync_cv_.Wait();
  syncing_ = true;
}

void Wal::ReleaseSyncToken(uint64_t synced_lsn) {
  MutexLock sl(&sync_mu_);
  syncing_ = false;
  if (synced_lsn > synced_lsn_) synced_lsn_ = synced_lsn;
  sync_cv_.SignalAll();
}

Status Wal::Rotate(uint64_t* seq) {
  AcquireSyncToken();  // no fsync runs on the file about to be replaced
  MutexLock lock(&mu_);
  Status s = file_ ? file_->Sync() : Status::OK();
  const uint64_t synced = s.ok() ? lsn_ : 0;
  if (s.ok()) s = OpenSegment(seq_ + 1);  // on failure the old segment stays
  ReleaseSyncToken(synced);
  SUNDIAL_RETURN_IF_ERROR(s);
  *seq = seq_;
  return Status::OK();
}

Status Wal::RemoveBefore(uint64_t seq, bool include_checkpoint_seq) {
  std::vector<uint64_t> segments, checkpoints;
  SUNDIAL_RETURN_IF_ERROR(ListFiles(&segments, &checkpoints));
  for (uint64_t s : segments) {
    if (s < seq && !Retained(s)) SUNDIAL_RETURN_IF_ERROR(env_->RemoveFile(SegmentPath(s)));
  }
  for (uint64_t c : checkpoints) {
    if (c < seq || (include_checkpoint_seq && c == seq)) {
      SUNDIAL_RETURN_IF_ERROR(env_->RemoveFile(CheckpointPath(c)));
    }
  }
  return env_->SyncDir(dir_);
}

Status Wal::NewCheckpoint(uint64_t seq, std::unique_ptr<CheckpointWriter>* out) {
  std::unique_ptr<File> f;
  const std::string tmp = CheckpointPath(seq) + ".tmp";
  SUNDIAL_RETURN_IF_ERROR(env_->OpenFile(tmp, &f));
  SUNDIAL_RETURN_IF_ERROR(f->Truncate(0));
  out->reset(new CheckpointWriter(this, seq, std::move(f)));
  return Status::OK();
}

Wal::CheckpointWriter::CheckpointWriter(Wal* wal, uint64_t seq, std::unique_ptr<File> file)
    : wal_(wal), seq_(seq), file_(std::move(file)), buf_(LogFileHeader(kCheckpointMagic)) {}

Wal::CheckpointWriter::~CheckpointWriter() {
  if (!file_) return;
  file_.reset();
  (void)wal_->env_->RemoveFile(wal_->CheckpointPath(seq_) + ".tmp");
}

Status Wal::CheckpointWriter::Flush() {
  if (buf_.empty()) return Status::OK();
  SUNDIAL_RETURN_IF_ERROR(file_->Write(offset_, buf_.data(), buf_.size()));
  offset_ += buf_.size();
  buf_.clear();
  return Status::OK();
}

Status Wal::CheckpointWriter::Add(const std::string& record) {
  buf_.append(record);
  if (buf_.size() >= kCheckpointChunk) return Flush();
  return Status::OK();
}

Status Wal::CheckpointWriter::Finish() {
  SUNDIAL_RETURN_IF_ERROR(Flush());
  SUNDIAL_RETURN_IF_ERROR(file_->Sync());
  const std::string path = wal_->CheckpointPath(seq_);
  file_.reset();
  SUNDIAL_RETURN_IF_ERROR(wal_->env_->RenameFile(path + ".tmp", path));
  SUNDIAL_RETURN_IF_ERROR(wal_->env_->SyncDir(wal_->dir_));
  return wal_->RemoveBefore(seq_, false);
}

Status Wal::Reset(const std::string& marks) {
  AcquireSyncToken();
  MutexLock lock(&mu_);
  const uint64_t next = seq_ + 1;
  Status s = OpenSegment(next);
  ReleaseSyncToken(s.ok() ? lsn_ : 0);
  SUNDIAL_RETURN_IF_ERROR(s);
  if (marks.empty()) return RemoveBefore(next, true);
  std::unique_ptr<CheckpointWriter> w;
  SUNDIAL_RETURN_IF_ERROR(NewCheckpoint(next, &w));
  SUNDIAL_RETURN_IF_ERROR(w->Add(marks));
  return w->Finish();  // removes what came before
}

}  // namespace sundial::storage
