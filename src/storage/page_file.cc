#include "storage/page_file.h"

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "storage/record_log.h"
#include "sundial/common/coding.h"
#include "sundial/common/crc32c.h"
#include "sundial/compress/page_format.h"

namespace sundial::storage {
namespace {

constexpr char kMagic[] = "SUNDPAG1";
constexpr uint8_t kRecordVersion = 1;
constexpr uint32_t kMinRecord = kPageRecordHeaderSize + compress::kPageHeaderSize;
constexpr uint32_t kMaxRecord = kPageRecordHeaderSize + compress::kMaxPageSize + 64;

uint64_t RoundWindow(uint64_t w) {
  const uint64_t unit = SystemPageSize();
  if (w < (64u << 10)) w = 64u << 10;
  return (w + unit - 1) / unit * unit;
}

// Checks the record at p (n bytes available), its CRC too if check_crc.
// Returns its length, or 0.
uint32_t CheckRecord(const char* p, uint64_t n, bool check_crc = true) {
  if (n < kMinRecord) return 0;
  const uint32_t len = DecodeFixed32(p + 4);
  if (len < kMinRecord || len > kMaxRecord || len > n) return 0;
  if (static_cast<uint8_t>(p[8]) != kRecordVersion) return 0;
  if (check_crc && crc32c::Unmask(DecodeFixed32(p)) != crc32c::Value(p + 4, len - 4)) return 0;
  return len;
}

}  // namespace

PageFile::PageFile(Env* env, std::string path, uint64_t window_bytes)
    : env_(env), path_(std::move(path)), window_bytes_(RoundWindow(window_bytes)) {}

Status PageFile::Open(uint32_t new_file_id) {
  MutexLock lock(&mu_);
  SUNDIAL_RETURN_IF_ERROR(env_->OpenFile(path_, &file_));
  SUNDIAL_RETURN_IF_ERROR(file_->Size(&end_));
  if (end_ < kLogFileHeaderSize) {
    const std::string h = LogFileHeader(kMagic, new_file_id);
    SUNDIAL_RETURN_IF_ERROR(file_->Truncate(0));
    SUNDIAL_RETURN_IF_ERROR(file_->Write(0, h.data(), h.size()));
    end_ = h.size();
    file_id_ = new_file_id;
    return Status::OK();
  }
  char h[kLogFileHeaderSize];
  size_t got = 0;
  SUNDIAL_RETURN_IF_ERROR(file_->Read(0, sizeof(h), h, &got));
  file_id_ = got == sizeof(h) ? DecodeFixed32(h + 12) : 0;
  return Status::OK();
}

uint32_t PageFile::file_id() {
  MutexLock lock(&mu_);
  return file_id_;
}

Status PageFile::Append(SeriesId series, uint8_t flags, std::string_view page,
                        uint64_t* offset, uint32_t* len) {
  PageToWrite p;
  p.series = series;
  p.flags = flags;
  p.page = page;
  SUNDIAL_RETURN_IF_ERROR(AppendMany(&p, 1));
  *offset = p.offset;
  *len = p.len;
  return Status::OK();
}

Status PageFile::AppendMany(PageToWrite* pages, size_t n) {
  if (n == 0) return Status::OK();
  for (size_t i = 0; i < n; ++i) {
    const uint64_t total = uint64_t{kPageRecordHeaderSize} + pages[i].page.size();
    if (total > kMaxRecord || total > window_bytes_) {
      return Status::InvalidArgument("page too large for a record");
    }
  }
  MutexLock lock(&mu_);
  // Place the records as single Appends would: none crosses a window
  // boundary; the gap before one that would is left zero.
  uint64_t at = end_;
  uint64_t first = 0;
  for (size_t i = 0; i < n; ++i) {
    const uint32_t total = kPageRecordHeaderSize + static_cast<uint32_t>(pages[i].page.size());
    const uint64_t window_end = (at / window_bytes_ + 1) * window_bytes_;
    if (at + total > window_end) at = window_end;
    if (i == 0) first = at;
    pages[i].offset = at;
    pages[i].len = total;
    at += total;
  }
  const uint64_t size64 = at - first;
  if (static_cast<size_t>(size64) != size64) return Status::InvalidArgument("page batch too large");
  std::string buf(static_cast<size_t>(size64), '\0');
  for (size_t i = 0; i < n; ++i) {
    char* rec = &buf[static_cast<size_t>(pages[i].offset - first)];
    const uint32_t total = pages[i].len;
    EncodeFixed32(rec + 4, total);
    rec[8] = static_cast<char>(kRecordVersion);
    rec[9] = static_cast<char>(pages[i].flags);
    EncodeFixed32(rec + 10, pages[i].series);
    std::memcpy(rec + kPageRecordHeaderSize, pages[i].page.data(), pages[i].page.size());
    EncodeFixed32(rec, crc32c::Mask(crc32c::Value(rec + 4, total - 4)));
  }
  Status s = file_->Write(first, buf.data(), buf.size());
  if (!s.ok()) {
    (void)file_->Truncate(end_);  // best effort: give the space back
    return s.WithContext("page write");
  }
  end_ = at;
  return Status::OK();
}

Status PageFile::Read(uint64_t offset, uint32_t len, SeriesId series, bool check_crc,
                      std::string* page) {
  File* f = nullptr;
  {
    MutexLock lock(&mu_);
    if (!Plausible(offset, len) || offset + len > end_) {
      return Status::Corruption(path_, "page record outside the file");
    }
    f = file_.get();  // lives as long as this object; pread needs no lock
  }
  page->resize(len);
  size_t got = 0;
  SUNDIAL_RETURN_IF_ERROR(f->Read(offset, len, &(*page)[0], &got));
  const char* p = page->data();
  if (got != len || CheckRecord(p, len, check_crc) != len || DecodeFixed32(p + 10) != series) {
    page->clear();
    return Damaged(offset);
  }
  page->erase(0, kPageRecordHeaderSize);
  return Status::OK();
}

Status PageFile::ParseRecord(const char* rec, uint64_t offset, uint32_t len, SeriesId series,
                             bool check_crc, std::string* page) const {
  if (!Plausible(offset, len)) return Status::Corruption(path_, "page record outside the file");
  if (CheckRecord(rec, len, check_crc) != len || DecodeFixed32(rec + 10) != series) {
    page->clear();
    return Damaged(offset);
  }
  page->assign(rec + kPageRecordHeaderSize, len - kPageRecordHeaderSize);
  return Status::OK();
}

bool PageFile::Plausible(uint64_t offset, uint32_t len) const {
  return offset >= kLogFileHeaderSize && len >= kMinRecord && len <= kMaxRecord &&
         offset / window_bytes_ == (offset + len - 1) / window_bytes_;
}

Status PageFile::Damaged(uint64_t offset) const {
  return Status::Corruption(path_, "damaged page record at offset " + std::to_string(offset));
}

std::vector<std::pair<uint64_t, uint64_t>> PageFile::Join(
    std::vector<std::pair<uint64_t, uint32_t>>* ranges) {
  std::vector<std::pair<uint64_t, uint64_t>> out;
  if (ranges->empty()) return out;
  std::sort(ranges->begin(), ranges->end());
  constexpr uint64_t kJoinGap = 4096;
  uint64_t from = (*ranges)[0].first, to = from;
  for (const auto& r : *ranges) {
    if (r.first > to + kJoinGap) {
      out.emplace_back(from, to - from);
      from = r.first;
    }
    to = std::max(to, r.first + r.second);
  }
  out.emplace_back(from, to - from);
  return out;
}

void PageFile::WillNeed(std::vector<std::pair<uint64_t, uint32_t>>* ranges) {
  File* f = nullptr;
  {
    MutexLock lock(&mu_);
    f = file_.get();  // as in Read: no lock held while the kernel queues reads
  }
  if (f == nullptr) return;
  for (const auto& [from, n] : Join(ranges)) f->WillNeed(from, n);
}

Status PageFile::ReadJoined(std::vector<std::pair<uint64_t, uint32_t>>* ranges,
                            JoinedRead* out) {
  out->bytes.reset();
  out->stretches.clear();
  File* f = nullptr;
  uint64_t end = 0;
  {
    MutexLock lock(&mu_);
    f = file_.get();
    end = end_;
  }
  if (f == nullptr) return Status::OK();
  uint64_t total = 0;
  for (auto [from, n] : Join(ranges)) {
    n = from >= end ? 0 : std::min(n, end - from);  // a record past the end stays out
    if (n == 0) continue;
    f->WillNeed(from, n);
    out->stretches.push_back(JoinedRead::Stretch{from, static_cast<size_t>(total),
                                                 static_cast<size_t>(n)});
    total += n;
  }
  if (static_cast<size_t>(total) != total) {  // 32-bit: more than fits; nothing kept
    out->stretches.clear();
    return Status::OK();
  }
  out->bytes.reset(new char[static_cast<size_t>(total)]);
  for (JoinedRead::Stretch& st : out->stretches) {
    size_t got = 0;
    SUNDIAL_RETURN_IF_ERROR(f->Read(st.offset, st.len, out->bytes.get() + st.at, &got));
    st.len = got;
  }
  return Status::OK();
}

const char* JoinedRead::Find(uint64_t offset, uint32_t len) const {
  // The last stretch starting at or before offset.
  auto it = std::upper_bound(stretches.begin(), stretches.end(), offset,
                             [](uint64_t o, const Stretch& st) { return o < st.offset; });
  if (it == stretches.begin()) return nullptr;
  --it;
  if (offset - it->offset + len > it->len) return nullptr;
  return bytes.get() + it->at + (offset - it->offset);
}

Status PageFile::Scan(const std::function<void(uint64_t, uint32_t, SeriesId, uint8_t,
                                               std::string_view)>& fn,
                      std::vector<std::string>* warnings) {
  MutexLock lock(&mu_);
  std::string buf;
  uint64_t skip_start = 0;
  bool skipping = false;
  uint64_t at = kLogFileHeaderSize;
  while (at + kMinRecord <= end_) {
    // Read the rest of this window (records never cross it).
    const uint64_t window_end = (at / window_bytes_ + 1) * window_bytes_;
    const uint64_t stop = window_end < end_ ? window_end : end_;
    buf.resize(static_cast<size_t>(stop - at));
    size_t got = 0;
    SUNDIAL_RETURN_IF_ERROR(file_->Read(at, buf.size(), &buf[0], &got));
    buf.resize(got);
    size_t pos = 0;
    while (pos + kMinRecord <= buf.size()) {
      const uint32_t len = CheckRecord(buf.data() + pos, buf.size() - pos);
      if (len == 0) {
        if (!skipping && buf[pos] != 0) {
          skipping = true;
          skip_start = at + pos;
        }
        ++pos;
        continue;
      }
      if (skipping) {
        warnings->push_back(path_ + ": skipped damaged bytes " + std::to_string(skip_start) +
                            ".." + std::to_string(at + pos));
        skipping = false;
      }
      const char* p = buf.data() + pos;
      fn(at + pos, len, DecodeFixed32(p + 10), static_cast<uint8_t>(p[9]),
         std::string_view(p + kPageRecordHeaderSize, len - kPageRecordHeaderSize));
      pos += len;
    }
    at = window_end;
  }
  if (skipping) {
    warnings->push_back(path_ + ": skipped damaged bytes " + std::to_string(skip_start) +
                        ".." + std::to_string(end_));
  }
  return Status::OK();
}

Status PageFile::Sync() {
  MutexLock lock(&mu_);
  return file_->Sync();
}

uint64_t PageFile::size() {
  MutexLock lock(&mu_);
  return end_;
}

void PageFile::TEST_SetEnd(uint64_t offset) {
  MutexLock lock(&mu_);
  end_ = offset;
}

}  // namespace sundial::storage
