#include "storage/partition.h"

#include <algorithm>
#include <cstdlib>

#include "storage/read_ahead.h"
#include "storage/record_log.h"
#include "sundial/common/coding.h"
#include "sundial/compress/page_format.h"

namespace sundial::storage {
namespace {
constexpr char kIndexMagic[] = "SUNDIDX1";
constexpr uint8_t kIndexRecord = 1;
}  // namespace

namespace {
uint32_t TimeShift(Timestamp start, Timestamp end) {
  const uint64_t span = static_cast<uint64_t>(end) - static_cast<uint64_t>(start);
  uint32_t shift = 0;
  while ((span >> shift) > 0xffffffffull) ++shift;
  return shift;
}
}  // namespace

Partition::Partition(Env* env, std::string dir, Timestamp start, Timestamp end,
                     uint64_t window_bytes)
    : env_(env),
      dir_(std::move(dir)),
      start_(start),
      end_(end),
      window_bytes_(window_bytes),
      time_shift_(TimeShift(start, end)) {}

Partition::~Partition() {
  MutexLock lock(&mu_);
  if (index_) (void)FlushIndex();  // best effort; the engine syncs before this
}

void Partition::BufferEntry(SeriesId series, const PageRef& ref) {
  PutVarint32(&unflushed_, series);
  PutVarint64(&unflushed_, ref.offset - unflushed_end_);
  PutVarint32(&unflushed_, ref.len);
  unflushed_.push_back(static_cast<char>(ref.flags));
  PutVarint64(&unflushed_, ZigZagEncode64(static_cast<int64_t>(static_cast<uint64_t>(ref.min_t) -
                                                               static_cast<uint64_t>(start_))));
  PutVarint64(&unflushed_, static_cast<uint64_t>(ref.max_t) - static_cast<uint64_t>(ref.min_t));
  unflushed_end_ = ref.offset + ref.len;
  ++unflushed_count_;
}

void Partition::AppendBufferedRecord(std::string* out) const {
  std::string payload;
  PutVarint32(&payload, unflushed_count_);
  payload += unflushed_;
  AppendLogRecord(out, kIndexRecord, payload);
}

void Partition::ClearBuffer() {
  unflushed_.clear();
  unflushed_count_ = 0;
  unflushed_end_ = 0;
}

Status Partition::FlushIndex() {
  if (unflushed_count_ == 0) return Status::OK();
  std::string rec;
  AppendBufferedRecord(&rec);
  Status s = index_->Write(index_end_, rec.data(), rec.size());
  if (!s.ok()) {
    (void)index_->Truncate(index_end_);
    return s.WithContext("page index write");
  }
  index_end_ += rec.size();
  ClearBuffer();
  return Status::OK();
}

bool Partition::DecodeRecord(std::string_view in, uint64_t page_end, uint64_t* dropped) {
  uint32_t n = 0;
  if (!GetVarint32(&in, &n)) return false;
  uint64_t prev_end = 0;
  for (uint32_t i = 0; i < n; ++i) {
    uint32_t series = 0, len = 0;
    uint64_t delta = 0, zz = 0, span = 0;
    if (!GetVarint32(&in, &series) || !GetVarint64(&in, &delta) || !GetVarint32(&in, &len) ||
        in.empty()) {
      return false;
    }
    PageRef ref;
    if (delta > page_end) return false;
    ref.offset = prev_end + delta;
    ref.len = len;
    ref.flags = static_cast<uint8_t>(in[0]);
    in.remove_prefix(1);
    if (!GetVarint64(&in, &zz) || !GetVarint64(&in, &span) || series == kInvalidSeriesId) {
      return false;
    }
    ref.min_t = static_cast<Timestamp>(static_cast<uint64_t>(start_) +
                                       static_cast<uint64_t>(ZigZagDecode64(zz)));
    ref.max_t = static_cast<Timestamp>(static_cast<uint64_t>(ref.min_t) + span);
    prev_end = ref.offset + ref.len;
    if (ref.min_t < start_ || ref.max_t >= end_ || ref.max_t < ref.min_t ||
        len >= (1u << kLenBits) || ref.offset > kMaxPageFileOffset) {
      return false;
    }
    if (ref.offset + ref.len > page_end) {
      ++*dropped;  // the page file was truncated under it
      continue;
    }
    AddEntry(series, ref);
  }
  return in.empty();
}

void Partition::AddEntry(SeriesId series, const PageRef& ref) {
  if (series >= last_.size()) last_.resize(static_cast<size_t>(series) + 1, 0);
  if ((entry_count_ >> kBlockBits) >= blocks_.size()) {
    void* block = AllocatePages(kBlockEntries * sizeof(Entry));
    if (block == nullptr) std::abort();  // out of memory, as operator new would
    blocks_.emplace_back(static_cast<Entry*>(block));
  }
  // Pages hold times of this partition only, so min_rel fits; max_t - min_t
  // < 2^32 ms for every page (page_format.h), so span fits too.
  const uint64_t unit_mask = (uint64_t{1} << time_shift_) - 1;
  const uint64_t min_off = static_cast<uint64_t>(ref.min_t) - static_cast<uint64_t>(start_);
  const uint64_t min_rel = min_off >> time_shift_;
  const uint64_t width = static_cast<uint64_t>(ref.max_t) - static_cast<uint64_t>(start_) -
                         (min_rel << time_shift_);
  Entry& e = At(entry_count_);
  e.prev = last_[series];
  e.offset_lo = static_cast<uint32_t>(ref.offset);
  e.min_rel = static_cast<uint32_t>(min_rel);
  e.span = static_cast<uint32_t>((width + unit_mask) >> time_shift_);
  e.bits = ref.len | (static_cast<uint32_t>((ref.offset >> 32) & 0xff) << kLenBits) |
           ((ref.flags & kPageFlagOutOfOrder) != 0 ? kFlagOutOfOrderBit : 0);
  ++entry_count_;
  last_[series] = entry_count_;
}

PageRef Partition::RefOf(uint32_t index) {
  const Entry& e = At(index);
  PageRef r;
  r.offset = OffsetOf(e);
  r.len = e.bits & ((1u << kLenBits) - 1);
  r.flags = (e.bits & kFlagOutOfOrderBit) != 0 ? kPageFlagOutOfOrder : 0;
  r.verified = (e.bits & kVerifiedBit) != 0;
  r.entry = index + 1;
  r.min_t = static_cast<Timestamp>(static_cast<uint64_t>(start_) +
                                   (static_cast<uint64_t>(e.min_rel) << time_shift_));
  r.max_t = static_cast<Timestamp>(static_cast<uint64_t>(r.min_t) +
                                   (static_cast<uint64_t>(e.span) << time_shift_));
  return r;
}

Status Partition::Open(std::vector<std::string>* warnings, bool after_cut) {
  MutexLock lock(&mu_);
  SUNDIAL_RETURN_IF_ERROR(OpenCold(warnings));
  if (!env_->FileExists(dir_ + "/pages")) {
    if (env_->FileExists(dir_ + "/index")) {
      warnings->push_back(dir_ + ": page file missing; partition is empty");
    }
    return Status::OK();
  }
  const bool had_index = env_->FileExists(dir_ + "/index");
  SUNDIAL_RETURN_IF_ERROR(EnsureFiles());
  uint64_t size = 0;
  SUNDIAL_RETURN_IF_ERROR(index_->Size(&size));
  bool damaged = false;
  if (!had_index || size <= kLogFileHeaderSize) {
    damaged = pages_->size() > kLogFileHeaderSize;
    if (damaged) warnings->push_back(dir_ + ": page index missing; rebuilding it");
  } else {
    SUNDIAL_RETURN_IF_ERROR(LoadIndex(size, warnings, &damaged, after_cut));
  }
  if (damaged) return RebuildIndex(warnings);
  if (index_end_ == 0) {
    if (size < kLogFileHeaderSize) {
      const std::string h = LogFileHeader(kIndexMagic);
      SUNDIAL_RETURN_IF_ERROR(index_->Truncate(0));
      SUNDIAL_RETURN_IF_ERROR(index_->Write(0, h.data(), h.size()));
      size = h.size();
    }
    index_end_ = size;
  }
  return Status::OK();
}

Status Partition::LoadIndex(uint64_t size, std::vector<std::string>* warnings, bool* damaged,
                            bool after_cut) {
  LogReader reader(index_.get(), size, kIndexMagic);
  if (!reader.Open().ok()) {
    warnings->push_back(dir_ + ": page index header damaged; rebuilding it");
    *damaged = true;
    return Status::OK();
  }
  const uint64_t page_end = pages_->size();
  uint64_t dropped = 0;
  uint8_t type;
  std::string_view in;
  while (reader.Next(&type, &in)) {
    if (type != kIndexRecord || !DecodeRecord(in, page_end, &dropped)) {
      *damaged = true;
      break;
    }
  }
  SUNDIAL_RETURN_IF_ERROR(reader.status());
  if (!reader.skipped().empty()) *damaged = true;
  for (const auto& w : reader.skipped()) warnings->push_back(w + "; rebuilding the index");
  if (dropped > 0 && !after_cut) {
    warnings->push_back(dir_ + ": page file truncated; " + std::to_string(dropped) +
                        " pages past its end skipped");
  }
  index_end_ = reader.end_of_valid();
  if (index_end_ < size && !*damaged) SUNDIAL_RETURN_IF_ERROR(index_->Truncate(index_end_));
  // Entries past the end would point at the pages written there next.
  if (dropped > 0 && !*damaged) return RewriteIndex();
  return Status::OK();
}

Status Partition::RewriteIndex() {
  std::vector<SeriesId> owner(entry_count_, kInvalidSeriesId);
  for (SeriesId series = 0; series < last_.size(); ++series) {
    for (uint32_t e = last_[series]; e != 0; e = At(e - 1).prev) owner[e - 1] = series;
  }
  std::string out = LogFileHeader(kIndexMagic);
  for (uint32_t i = 0; i < entry_count_; ++i) {
    BufferEntry(owner[i], RefOf(i));
    if (unflushed_count_ >= 1024 || i + 1 == entry_count_) {
      AppendBufferedRecord(&out);
      ClearBuffer();
    }
  }
  return ReplaceIndexFile(out);
}

Status Partition::ReplaceIndexFile(const std::string& out) {
  const std::string tmp = dir_ + "/index.tmp";
  std::unique_ptr<File> f;
  SUNDIAL_RETURN_IF_ERROR(env_->OpenFile(tmp, &f));
  SUNDIAL_RETURN_IF_ERROR(f->Truncate(0));
  SUNDIAL_RETURN_IF_ERROR(f->Write(0, out.data(), out.size()));
  SUNDIAL_RETURN_IF_ERROR(f->Sync());
  f.reset();
  index_.reset();
  SUNDIAL_RETURN_IF_ERROR(env_->RenameFile(tmp, dir_ + "/index"));
  SUNDIAL_RETURN_IF_ERROR(env_->SyncDir(dir_));
  SUNDIAL_RETURN_IF_ERROR(env_->OpenFile(dir_ + "/index", &index_));
  index_end_ = out.size();
  return Status::OK();
}

uint64_t Partition::Mark() {
  MutexLock lock(&mu_);
  return pages_ ? pages_->size() : 0;
}

Status Partition::CutToMark(Env* env, const std::string& dir, uint64_t mark, bool* cut) {
  *cut = false;
  const std::string path = dir + "/pages";
  if (!env->FileExists(path)) return Status::OK();
  std::unique_ptr<File> f;
  SUNDIAL_RETURN_IF_ERROR(env->OpenFile(path, &f));
  uint64_t size = 0;
  SUNDIAL_RETURN_IF_ERROR(f->Size(&size));
  if (size <= mark || size <= kLogFileHeaderSize) return Status::OK();
  SUNDIAL_RETURN_IF_ERROR(f->Truncate(mark < kLogFileHeaderSize ? 0 : mark));
  SUNDIAL_RETURN_IF_ERROR(f->Sync());
  *cut = true;
  return Status::OK();
}

Status Partition::RebuildIndex(std::vector<std::string>* warnings) {
  blocks_.clear();
  entry_count_ = 0;
  last_.clear();
  std::string out = LogFileHeader(kIndexMagic);
  Status s = pages_->Scan(
      [&](uint64_t offset, uint32_t len, SeriesId series, uint8_t flags, std::string_view page) {
        mu_.AssertHeld();  // the caller's lock, held while Scan calls back
        compress::PageHeader h;
        if (!compress::DecodePageHeader(page, &h).ok() || series == kInvalidSeriesId ||
            h.min_t < start_ || h.max_t >= end_ || offset > kMaxPageFileOffset) {
          return;
        }
        PageRef ref;
        ref.offset = offset;
        ref.min_t = h.min_t;
        ref.max_t = h.max_t;
        ref.len = len;
        ref.flags = flags;
        AddEntry(series, ref);
        BufferEntry(series, ref);
        if (unflushed_count_ >= 1024) {
          AppendBufferedRecord(&out);
          ClearBuffer();
        }
      },
      warnings);
  SUNDIAL_RETURN_IF_ERROR(s);
  if (unflushed_count_ > 0) {
    AppendBufferedRecord(&out);
    ClearBuffer();
  }
  SUNDIAL_RETURN_IF_ERROR(ReplaceIndexFile(out));
  warnings->push_back(dir_ + ": page index rebuilt with " + std::to_string(entry_count_) +
                      " pages");
  return Status::OK();
}

Status Partition::EnsureFiles() {
  if (pages_) return Status::OK();
  SUNDIAL_RETURN_IF_ERROR(env_->CreateDir(dir_));
  auto pages = std::make_unique<PageFile>(env_, dir_ + "/pages", window_bytes_);
  SUNDIAL_RETURN_IF_ERROR(pages->Open(NewPageFileId()));
  std::unique_ptr<File> index;
  SUNDIAL_RETURN_IF_ERROR(env_->OpenFile(dir_ + "/index", &index));
  uint64_t size = 0;
  SUNDIAL_RETURN_IF_ERROR(index->Size(&size));
  if (size == 0) {
    const std::string h = LogFileHeader(kIndexMagic);
    SUNDIAL_RETURN_IF_ERROR(index->Write(0, h.data(), h.size()));
    index_end_ = h.size();
  }
  pages_ = std::move(pages);
  index_ = std::move(index);
  return Status::OK();
}

Status Partition::AddPage(SeriesId series, uint8_t flags, std::string_view page,
                          Timestamp min_t, Timestamp max_t) {
  const NewPage p{series, flags, page, min_t, max_t};
  return AddPages(&p, 1);
}

Status Partition::AddPages(const NewPage* pages, size_t n) {
  if (n == 0) return Status::OK();
  std::vector<PageToWrite> writes(n);
  uint64_t bytes = 0;
  for (size_t i = 0; i < n; ++i) {
    writes[i].series = pages[i].series;
    writes[i].flags = pages[i].flags;
    writes[i].page = pages[i].page;
    bytes += kPageRecordHeaderSize + pages[i].page.size();
  }
  MutexLock lock(&mu_);
  const bool fresh = !pages_;
  SUNDIAL_RETURN_IF_ERROR(EnsureFiles());
  if (fresh) SUNDIAL_RETURN_IF_ERROR(env_->SyncDir(dir_));
  // A record is preceded by at most its own length of window padding.
  const uint64_t limit = kMaxPageFileOffset - (1u << kLenBits);
  if (pages_->size() > limit || 2 * bytes > limit - pages_->size()) {
    return Status::IOError(dir_, "page file reached its size limit (1 TiB)");
  }
  SUNDIAL_RETURN_IF_ERROR(pages_->AppendMany(writes.data(), n));
  for (size_t i = 0; i < n; ++i) {
    PageRef ref;
    ref.min_t = pages[i].min_t;
    ref.max_t = pages[i].max_t;
    ref.flags = pages[i].flags;
    ref.offset = writes[i].offset;
    ref.len = writes[i].len;
    BufferEntry(pages[i].series, ref);
    AddEntry(pages[i].series, ref);
  }
  dirty_ = true;
  // An index write error is not the pages': the entries stay buffered and
  // Sync() reports the error (so the WAL is not checkpointed past it).
  if (unflushed_count_ >= 64) (void)FlushIndex();
  return Status::OK();
}

void Partition::PagesOf(SeriesId series, Timestamp start, Timestamp end,
                        std::vector<PageRef>* out) {
  const size_t first = out->size();
  ColdFile* c = nullptr;
  {
    MutexLock lock(&mu_);
    c = cold_.get();
    for (uint32_t e = series < last_.size() ? last_[series] : 0; e != 0; e = At(e - 1).prev) {
      const PageRef r = RefOf(e - 1);
      if (r.max_t >= start && r.min_t <= end) out->push_back(r);
    }
  }
  std::reverse(out->begin() + static_cast<std::ptrdiff_t>(first), out->end());
  if (c == nullptr) return;
  // The cold file's pages come first: they were written before any page of
  // the page file. Read without mu_ (see cold()).
  std::vector<ColdPage> pages;
  if (!c->PagesOf(series, start, end, &pages).ok()) {
    // A damaged block: one reference whose read fails the same way, so the
    // reader reports it and goes on.
    pages.assign(1, ColdPage{0, 0, std::max(start, start_), std::min(end, end_ - 1)});
  }
  std::vector<PageRef> refs(pages.size());
  for (size_t i = 0; i < pages.size(); ++i) {
    refs[i].cold = true;
    refs[i].offset = pages[i].offset;
    refs[i].len = pages[i].len;
    refs[i].min_t = pages[i].min_t;
    refs[i].max_t = pages[i].max_t;
  }
  out->insert(out->begin() + static_cast<std::ptrdiff_t>(first), refs.begin(), refs.end());
}

Timestamp Partition::MaxTimeOf(SeriesId series) {
  std::vector<PageRef> refs;
  Timestamp m = kMinTimestamp;
  if (ColdFile* c = cold()) m = c->MaxTimeOf(series);
  {
    MutexLock lock(&mu_);
    for (uint32_t e = series < last_.size() ? last_[series] : 0; e != 0; e = At(e - 1).prev) {
      const PageRef r = RefOf(e - 1);
      if (time_shift_ == 0) {
        m = std::max(m, r.max_t);
      } else {
        refs.push_back(r);
      }
    }
  }
  // Rounded times: read the headers of the pages that may hold the newest.
  std::sort(refs.begin(), refs.end(),
            [](const PageRef& a, const PageRef& b) { return a.max_t > b.max_t; });
  std::string page;
  for (const PageRef& r : refs) {
    if (r.max_t <= m) break;
    compress::PageHeader h;
    if (ReadPage(series, r, &page).ok() && compress::DecodePageHeader(page, &h).ok()) {
      m = std::max(m, h.max_t);
    }
  }
  return m;
}

bool Partition::HasSeries(SeriesId series) {
  if (ColdFile* c = cold(); c != nullptr && c->HasSeries(series)) return true;
  MutexLock lock(&mu_);
  return series < last_.size() && last_[series] != 0;
}

void Partition::WillNeed(const std::vector<PageRef>& refs) {
  std::vector<std::pair<uint64_t, uint32_t>> ranges;
  for (const PageRef& r : refs) {
    if (!r.cold) ranges.emplace_back(r.offset, r.len);
  }
  if (ranges.empty()) return;
  PageFile* pages = nullptr;
  {
    MutexLock lock(&mu_);
    pages = pages_.get();
  }
  if (pages != nullptr) pages->WillNeed(&ranges);
}

uint64_t Partition::WillReadPages(const std::vector<SeriesId>& ids, Timestamp start,
                                  Timestamp end, uint64_t max_bytes, size_t* covered,
                                  ReadAhead* keep) {
  std::vector<std::pair<uint64_t, uint32_t>> ranges;
  uint64_t total = 0;
  PageFile* pages = nullptr;
  *covered = ids.size();
  {
    MutexLock lock(&mu_);
    pages = pages_.get();
    if (pages == nullptr) return 0;
    for (size_t i = 0; i < ids.size(); ++i) {
      const SeriesId series = ids[i];
      const size_t before = ranges.size();
      uint64_t bytes = 0;
      for (uint32_t e = series < last_.size() ? last_[series] : 0; e != 0; e = At(e - 1).prev) {
        const PageRef r = RefOf(e - 1);
        if (r.max_t < start || r.min_t > end) continue;
        ranges.emplace_back(r.offset, r.len);
        bytes += r.len;
      }
      if (total + bytes > max_bytes) {  // this series' pages do not fit
        ranges.resize(before);
        *covered = i;
        break;
      }
      total += bytes;
    }
  }
  if (keep == nullptr) {
    pages->WillNeed(&ranges);
    return total;
  }
  JoinedRead read;
  // A failed read leaves the pages to ReadPage, which reports it.
  if (pages->ReadJoined(&ranges, &read).ok()) keep->Add(pages, pages->file_id(), std::move(read));
  return total;
}

Status Partition::ReadPage(SeriesId series, const PageRef& ref, std::string* page,
                           const ReadAhead* kept) {
  if (ref.cold) {
    ColdFile* c = cold();
    if (c == nullptr) return Status::NotFound(dir_, "no cold file");
    return c->ReadPage(series, ColdPage{static_cast<uint32_t>(ref.offset), ref.len, ref.min_t,
                                        ref.max_t},
                       page);
  }
  PageFile* pages = nullptr;
  {
    MutexLock lock(&mu_);
    pages = pages_.get();
  }
  if (pages == nullptr) return Status::NotFound(dir_, "no page file");
  const char* rec = kept == nullptr ? nullptr
                                    : kept->Find(pages, pages->file_id(), ref.offset, ref.len);
  SUNDIAL_RETURN_IF_ERROR(
      rec != nullptr ? pages->ParseRecord(rec, ref.offset, ref.len, series, !ref.verified, page)
                     : pages->Read(ref.offset, ref.len, series, !ref.verified, page));
  if (!ref.verified && ref.entry != 0) {
    MutexLock lock(&mu_);
    if (ref.entry <= entry_count_ && OffsetOf(At(ref.entry - 1)) == ref.offset) {
      At(ref.entry - 1).bits |= kVerifiedBit;
    }
  }
  return Status::OK();
}

Status Partition::Sync() {
  MutexLock lock(&mu_);
  if (!dirty_) return Status::OK();
  SUNDIAL_RETURN_IF_ERROR(FlushIndex());
  SUNDIAL_RETURN_IF_ERROR(pages_->Sync());
  SUNDIAL_RETURN_IF_ERROR(index_->Sync());
  dirty_ = false;
  return Status::OK();
}

Status Partition::PrepareClose(bool* unsynced) {
  MutexLock lock(&mu_);
  *unsynced = dirty_;
  if (!dirty_) return Status::OK();
  return FlushIndex();
}

void Partition::MarkUnsynced() {
  MutexLock lock(&mu_);
  if (pages_) dirty_ = true;  // without a page file there is nothing to sync
}

Status Partition::SyncFiles(Env* env, const std::string& dir) {
  for (const char* name : {"/pages", "/index"}) {
    std::unique_ptr<File> f;
    const Status s = env->OpenExistingFile(dir + name, &f);
    if (s.IsNotFound()) continue;
    SUNDIAL_RETURN_IF_ERROR(s);
    SUNDIAL_RETURN_IF_ERROR(f->Sync());
  }
  return Status::OK();
}

uint64_t Partition::page_count() {
  MutexLock lock(&mu_);
  return entry_count_ + (cold_ ? cold_->page_count() : 0);
}

size_t Partition::MemoryUsage() {
  MutexLock lock(&mu_);
  return blocks_.size() * kBlockEntries * sizeof(Entry) + blocks_.capacity() * sizeof(void*) +
         last_.capacity() * sizeof(uint32_t) + (cold_ ? cold_->MemoryUsage() : 0);
}

uint64_t Partition::file_bytes() {
  MutexLock lock(&mu_);
  return (pages_ ? pages_->size() + index_end_ : 0) + (cold_ ? cold_->file_bytes() : 0);
}

}  // namespace sundial::storage

namespace sundial::storage {

Status Partition::TEST_SetPageFileEnd(uint64_t offset) {
  MutexLock lock(&mu_);
  SUNDIAL_RETURN_IF_ERROR(EnsureFiles());
  pages_->TEST_SetEnd(offset);
  return Status::OK();
}

}  // namespace sundial::storage
