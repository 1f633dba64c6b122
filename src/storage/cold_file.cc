#include "storage/cold_file.h"

#include <algorithm>
#include <cstring>

#include "storage/cold_block.h"
#include "sundial/common/coding.h"
#include "sundial/common/crc32c.h"
#include "sundial/compress/page_builder.h"
#include "sundial/compress/page_format.h"
#include "sundial/compress/page_iterator.h"

namespace sundial::storage {
namespace {

constexpr char kMagic[] = "SUNDCLD1";
constexpr char kEndMagic[] = "SUNDCLDE";   // versions 1 and 2
constexpr char kEndMagic3[] = "SUNDCLD3";  // version 3
constexpr char kBlockMagic[] = "SCBK";
constexpr uint32_t kVersion = 3;  // writes; reads 1, 2 and 3
// Block kinds (the first decompressed byte of a version 3 block).
constexpr char kPageBlock = 0;
constexpr char kColumnarBlock = 1;
// The byte planes of columnar blocks are nearly all literals: levels below
// 12 spend about 0.03 B/pt more on them in short matches that do not pay
// (24 h of DevOps data: level 3 0.954, 12 0.921, 19 0.919 B/pt). Level 12
// needs a 0.5 MB context for a day of 10 s points, 2 MB up to 128 Ki points
// and at most 13 MB (a million points, the most a columnar block holds),
// only while compacting.
constexpr int kColdZstdLevel = 12;
// A series' block holds at most one partition of pages; this bounds what a
// damaged length can make the reader allocate.
constexpr uint32_t kMaxBlockBytes = 256u << 20;

uint64_t RelTime(Timestamp t, Timestamp start) {
  return ZigZagEncode64(
      static_cast<int64_t>(static_cast<uint64_t>(t) - static_cast<uint64_t>(start)));
}

Timestamp AbsTime(uint64_t zz, Timestamp start) {
  return static_cast<Timestamp>(static_cast<uint64_t>(start) +
                                static_cast<uint64_t>(ZigZagDecode64(zz)));
}

}  // namespace

ColdFileWriter::ColdFileWriter(Env* env, Timestamp partition_start, uint32_t version)
    : env_(env),
      start_(partition_start),
      version_(version),
      zstd_(kColdZstdLevel) {}

Status ColdFileWriter::Open(const std::string& path, uint32_t replaced_page_file_id) {
  SUNDIAL_RETURN_IF_ERROR(env_->OpenFile(path, &file_));
  SUNDIAL_RETURN_IF_ERROR(file_->Truncate(0));
  std::string h(kMagic, 8);
  PutFixed32(&h, version_);
  PutFixed32(&h, replaced_page_file_id);
  SUNDIAL_RETURN_IF_ERROR(file_->Write(0, h.data(), h.size()));
  end_ = h.size();
  return Status::OK();
}

Status ColdFileWriter::ColumnarBlock(const std::vector<std::string>& pages) {
  points_.clear();
  for (const std::string& p : pages) {
    compress::PageIterator it(p);
    while (it.Next()) points_.push_back(Sample{it.t(), it.v()});
    SUNDIAL_RETURN_IF_ERROR(it.status());
  }
  raw_.clear();
  if (points_.empty() || points_.size() > kMaxColdBlockPoints) return Status::OK();
  raw_.push_back(kColumnarBlock);
  EncodeColdBlock(points_, start_, &zstd_, &raw_);
  return Status::OK();
}

Status ColdFileWriter::AddSeries(SeriesId series, const std::vector<std::string>& pages,
                                 const std::vector<ColdPage>& times) {
  raw_.clear();
  if (version_ >= 3) SUNDIAL_RETURN_IF_ERROR(ColumnarBlock(pages));
  if (raw_.empty() && version_ >= 3) raw_.push_back(kPageBlock);
  if (raw_.empty() || raw_[0] == kPageBlock) {
    PutVarint32(&raw_, static_cast<uint32_t>(pages.size()));
    for (size_t i = 0; i < pages.size(); ++i) {
      PutVarint32(&raw_, static_cast<uint32_t>(pages[i].size()));
      PutVarint64(&raw_, RelTime(times[i].min_t, start_));
      PutVarint64(&raw_, static_cast<uint64_t>(times[i].max_t) -
                             static_cast<uint64_t>(times[i].min_t));
    }
    for (const std::string& p : pages) raw_ += p;
  }
  if (raw_.size() > kMaxBlockBytes) return Status::InvalidArgument("cold block too large");
  packed_.clear();
  packed_.append(kBlockMagic, 4);
  PutFixed32(&packed_, series);
  packed_.append(16, '\0');  // lengths and CRCs, filled in below
  const size_t head = packed_.size();
  SUNDIAL_RETURN_IF_ERROR(zstd_.Compress(raw_, &packed_));
  const uint32_t comp_len = static_cast<uint32_t>(packed_.size() - head);
  const uint32_t crc = crc32c::Mask(crc32c::Value(packed_.data() + head, comp_len));
  EncodeFixed32(&packed_[8], comp_len);
  EncodeFixed32(&packed_[12], static_cast<uint32_t>(raw_.size()));
  EncodeFixed32(&packed_[16], crc);
  EncodeFixed32(&packed_[20], crc32c::Mask(crc32c::Value(packed_.data(), 20)));
  SUNDIAL_RETURN_IF_ERROR(file_->Write(end_, packed_.data(), packed_.size()));
  end_ += head;  // the index points at the compressed bytes, as in version 1
  IndexEntry e;
  e.series = series;
  e.offset = end_;
  e.comp_len = comp_len;
  e.raw_len = static_cast<uint32_t>(raw_.size());
  e.crc = crc;
  e.pages = static_cast<uint32_t>(pages.size());
  e.min_t = times.front().min_t;
  e.max_t = times.back().max_t;
  index_.push_back(e);
  end_ += comp_len;
  return Status::OK();
}

Status ColdFileWriter::Finish() {
  std::sort(index_.begin(), index_.end(),
            [](const IndexEntry& a, const IndexEntry& b) { return a.series < b.series; });
  std::string tail;
  PutVarint32(&tail, static_cast<uint32_t>(index_.size()));
  for (size_t i = 0; i < index_.size(); ++i) {
    const IndexEntry& e = index_[i];
    if (i > 0 && e.series == index_[i - 1].series) {
      return Status::InvalidArgument("series added twice to a cold file",
                                     std::to_string(e.series));
    }
    PutVarint32(&tail, i == 0 ? e.series : e.series - index_[i - 1].series);
    PutVarint64(&tail, e.offset);
    PutVarint32(&tail, e.comp_len);
    PutVarint32(&tail, e.raw_len);
    PutFixed32(&tail, e.crc);
    PutVarint32(&tail, e.pages);
    PutVarint64(&tail, RelTime(e.min_t, start_));
    PutVarint64(&tail, static_cast<uint64_t>(e.max_t) - static_cast<uint64_t>(e.min_t));
  }
  const uint32_t index_len = static_cast<uint32_t>(tail.size());
  const uint32_t crc = crc32c::Mask(crc32c::Value(tail.data(), tail.size()));
  PutFixed64(&tail, end_);
  PutFixed32(&tail, index_len);
  PutFixed32(&tail, crc);
  tail.append(version_ >= 3 ? kEndMagic3 : kEndMagic, 8);
  SUNDIAL_RETURN_IF_ERROR(file_->Write(end_, tail.data(), tail.size()));
  end_ += tail.size();
  return file_->Sync();
}

Status ColdFile::Open(Env* env, const std::string& path, Timestamp partition_start,
                      Timestamp partition_end, std::unique_ptr<ColdFile>* out) {
  std::unique_ptr<File> f;
  SUNDIAL_RETURN_IF_ERROR(env->OpenFile(path, &f));
  return FromFile(std::move(f), partition_start, partition_end, out);
}

Status ColdFile::FromFile(std::unique_ptr<File> f, Timestamp partition_start,
                          Timestamp partition_end, std::unique_ptr<ColdFile>* out,
                          bool verify_checksums) {
  const std::string path = f->path();
  uint64_t size = 0;
  SUNDIAL_RETURN_IF_ERROR(f->Size(&size));
  if (size < kColdHeaderSize + kColdFooterSize) return Status::Corruption(path, "too short");
  char h[kColdHeaderSize];
  size_t got = 0;
  SUNDIAL_RETURN_IF_ERROR(f->Read(0, sizeof(h), h, &got));
  const uint32_t version = got == sizeof(h) ? DecodeFixed32(h + 8) : 0;
  const bool header_ok =
      got == sizeof(h) && std::memcmp(h, kMagic, 8) == 0 && version >= 1 && version <= kVersion;
  // How to read the blocks: the end magic says version 3 or older; when it
  // is damaged, the header says; when that is damaged too, version 3. (One
  // flipped bit in either never makes the blocks unreadable.)
  char end[8];
  SUNDIAL_RETURN_IF_ERROR(f->Read(size - sizeof(end), sizeof(end), end, &got));
  const uint32_t blocks = got != sizeof(end)                          ? 0
                          : std::memcmp(end, kEndMagic3, 8) == 0 ? 3
                          : std::memcmp(end, kEndMagic, 8) == 0  ? 2
                                                                  : 0;
  const uint32_t block_version = blocks != 0 ? blocks : header_ok ? version : kVersion;
  // The index locates the blocks by absolute offsets: a damaged header
  // costs nothing while footer and index are sound. When they are not, a
  // version 2 or 3 file (or one whose header is unreadable) is scanned for its
  // self-describing blocks.
  Status s = FromIndex(f.get(), size, verify_checksums, h, header_ok, partition_start,
                       partition_end, out);
  if (s.ok()) {
    (*out)->file_ = std::move(f);
    (*out)->version_ = block_version;
    return s;
  }
  if (!s.IsCorruption() || (header_ok && version == 1)) return s;
  std::unique_ptr<ColdFile> c(new ColdFile(std::move(f), path, partition_start, size, size));
  c->replaced_id_ = header_ok ? DecodeFixed32(h + 12) : 0;
  c->version_ = block_version;
  c->verify_checksums_ = verify_checksums;
  const Status scan = c->ScanBlocks(partition_end);
  if (!scan.ok()) return s;
  c->recovered_ = s.ToString();
  *out = std::move(c);
  return Status::OK();
}

Status ColdFile::FromIndex(File* f, uint64_t size, bool verify_checksums, const char* h,
                           bool header_ok, Timestamp partition_start, Timestamp partition_end,
                           std::unique_ptr<ColdFile>* out) {
  const std::string& path = f->path();
  char foot[kColdFooterSize];
  size_t got = 0;
  SUNDIAL_RETURN_IF_ERROR(f->Read(size - sizeof(foot), sizeof(foot), foot, &got));
  if (got != sizeof(foot) ||
      (std::memcmp(foot + 16, kEndMagic, 8) != 0 && std::memcmp(foot + 16, kEndMagic3, 8) != 0)) {
    return Status::Corruption(path, "bad footer");
  }
  const uint64_t index_at = DecodeFixed64(foot);
  const uint32_t index_len = DecodeFixed32(foot + 8);
  if (index_at < kColdHeaderSize || index_at > size - sizeof(foot) ||
      index_len != size - sizeof(foot) - index_at) {
    return Status::Corruption(path, "bad index location");
  }
  std::string index(index_len, '\0');
  SUNDIAL_RETURN_IF_ERROR(f->Read(index_at, index_len, index.empty() ? nullptr : &index[0], &got));
  if (got != index_len ||
      (verify_checksums &&
       crc32c::Unmask(DecodeFixed32(foot + 12)) != crc32c::Value(index.data(), index.size()))) {
    return Status::Corruption(path, "index checksum mismatch");
  }
  std::unique_ptr<ColdFile> c(new ColdFile(nullptr, path, partition_start, index_at, size));
  c->replaced_id_ = header_ok ? DecodeFixed32(h + 12) : 0;
  c->verify_checksums_ = verify_checksums;
  SUNDIAL_RETURN_IF_ERROR(c->ParseIndex(index, partition_end));
  *out = std::move(c);
  return Status::OK();
}

Status ColdFile::ParseIndex(std::string_view in, Timestamp end) {
  uint32_t n = 0;
  if (!GetVarint32(&in, &n) || n > in.size()) return Status::Corruption(path_, "bad index");
  entries_.reserve(n);
  for (uint32_t i = 0; i < n; ++i) {
    Entry e;
    uint32_t delta = 0, pages = 0;
    uint64_t zz = 0, span = 0;
    if (!GetVarint32(&in, &delta) || !GetVarint64(&in, &e.offset) ||
        !GetVarint32(&in, &e.comp_len) || !GetVarint32(&in, &e.raw_len) || in.size() < 4) {
      return Status::Corruption(path_, "bad index entry");
    }
    e.crc = DecodeFixed32(in.data());
    in.remove_prefix(4);
    if (!GetVarint32(&in, &pages) || !GetVarint64(&in, &zz) || !GetVarint64(&in, &span)) {
      return Status::Corruption(path_, "bad index entry");
    }
    const uint64_t id = (i == 0 ? 0 : uint64_t{entries_.back().id}) + delta;
    e.id = static_cast<SeriesId>(id);
    e.min_t = AbsTime(zz, start_);
    e.max_t = static_cast<Timestamp>(static_cast<uint64_t>(e.min_t) + span);
    if ((i > 0 && delta == 0) || id >= kInvalidSeriesId || e.offset < kColdHeaderSize ||
        e.offset > blocks_end_ || e.comp_len > blocks_end_ - e.offset || e.raw_len > kMaxBlockBytes ||
        pages == 0 || e.min_t < start_ || e.max_t >= end || e.max_t < e.min_t) {
      return Status::Corruption(path_, "bad index entry");
    }
    pages_ += pages;
    entries_.push_back(e);
  }
  if (!in.empty()) return Status::Corruption(path_, "trailing bytes after the index");
  return Status::OK();
}

const ColdFile::Entry* ColdFile::Find(SeriesId series) const {
  auto it = std::lower_bound(entries_.begin(), entries_.end(), series,
                             [](const Entry& e, SeriesId s) { return e.id < s; });
  return it != entries_.end() && it->id == series ? &*it : nullptr;
}

Timestamp ColdFile::MaxTimeOf(SeriesId series) const {
  const Entry* e = Find(series);
  return e == nullptr ? kMinTimestamp : e->max_t;
}

std::vector<SeriesId> ColdFile::SeriesIds() const {
  std::vector<SeriesId> ids;
  ids.reserve(entries_.size());
  for (const Entry& e : entries_) ids.push_back(e.id);
  return ids;
}

uint64_t ColdFile::WillNeed(const std::vector<SeriesId>& ids, uint64_t max_bytes,
                            size_t* covered) const {
  std::vector<std::pair<uint64_t, uint64_t>> ranges;  // [from, to) in the file
  uint64_t total = 0;
  *covered = ids.size();
  for (size_t i = 0; i < ids.size(); ++i) {
    const Entry* e = Find(ids[i]);
    if (e == nullptr) continue;
    if (total + e->comp_len > max_bytes) {
      *covered = i;
      break;
    }
    total += e->comp_len;
    ranges.emplace_back(e->offset, e->offset + e->comp_len);
  }
  if (ranges.empty() || file_ == nullptr) return 0;
  std::sort(ranges.begin(), ranges.end());
  // Block headers (and other series' small blocks) between two wanted
  // blocks are cheaper to read along than to skip with another request.
  constexpr uint64_t kJoinGap = 16 * 1024;
  uint64_t from = ranges[0].first, to = ranges[0].second;
  for (const auto& [a, b] : ranges) {
    if (a > to + kJoinGap) {
      file_->WillNeed(from, to - from);
      from = a;
    }
    to = std::max(to, b);
  }
  file_->WillNeed(from, to - from);
  return total;
}

Status ColdFile::GetBlock(const Entry& e, const Block** out) {
  for (size_t i = 0; i < cache_.size(); ++i) {
    if (cache_[i]->id != e.id) continue;
    std::rotate(cache_.begin() + static_cast<std::ptrdiff_t>(i),
                cache_.begin() + static_cast<std::ptrdiff_t>(i) + 1, cache_.end());
    *out = cache_.back().get();
    return Status::OK();
  }
  std::string packed(e.comp_len, '\0');
  size_t got = 0;
  SUNDIAL_RETURN_IF_ERROR(
      file_->Read(e.offset, packed.size(), packed.empty() ? nullptr : &packed[0], &got));
  if (got != packed.size() ||
      (verify_checksums_ && crc32c::Unmask(e.crc) != crc32c::Value(packed.data(), got))) {
    return Status::Corruption(path_, "block of series " + std::to_string(e.id) +
                                         " fails its checksum");
  }
  auto b = std::make_unique<Block>();
  b->id = e.id;
  SUNDIAL_RETURN_IF_ERROR(zstd_.Decompress(packed, e.raw_len, &b->raw));
  SUNDIAL_RETURN_IF_ERROR(DecodeBlock(b.get()));
  size_t point_bytes = b->point_bytes();
  for (const auto& c : cache_) point_bytes += c->point_bytes();
  while (!cache_.empty() && (cache_.size() >= kCachedBlocks || point_bytes > kCachedPointBytes)) {
    point_bytes -= cache_.front()->point_bytes();
    cache_.erase(cache_.begin());
  }
  cache_.push_back(std::move(b));
  *out = cache_.back().get();
  return Status::OK();
}

Status ColdFile::DecodeBlock(Block* b) {
  const Status bad = Status::Corruption(path_, "bad page table in block of series " +
                                                   std::to_string(b->id));
  size_t skip = 0;
  if (version_ >= 3) {
    if (b->raw.empty()) return bad;
    if (b->raw[0] == kColumnarBlock) {
      Status s =
          DecodeColdBlock(std::string_view(b->raw).substr(1), start_, &zstd_, &b->ts, &b->vs);
      if (!s.ok()) {
        return Status::Corruption(path_, "block of series " + std::to_string(b->id) + ": " +
                                             s.message());
      }
      std::string().swap(b->raw);
      // Runs of points that one page can hold (ReadPage), in time order:
      // at most kColdChunkPoints points over at most kMaxPageSpanMs.
      const std::vector<Timestamp>& ts = b->ts;
      for (size_t i = 1; i < ts.size(); ++i) {
        if (ts[i] <= ts[i - 1]) return Status::Corruption(path_, "cold block out of order");
      }
      for (size_t first = 0; first < ts.size();) {
        const auto from = ts.begin() + static_cast<std::ptrdiff_t>(first);
        const auto limit = from + static_cast<std::ptrdiff_t>(
                                      std::min<size_t>(kColdChunkPoints, ts.size() - first));
        const auto t0 = static_cast<uint64_t>(*from);
        const auto last = std::partition_point(from + 1, limit, [t0](Timestamp t) {
          return static_cast<uint64_t>(t) - t0 <= compress::kMaxPageSpanMs;
        });
        const auto n = static_cast<size_t>(last - from);
        b->pages.push_back(ColdPage{static_cast<uint32_t>(first), static_cast<uint32_t>(n),
                                    *from, ts[first + n - 1]});
        first += n;
      }
      return Status::OK();
    }
    if (b->raw[0] != kPageBlock) return bad;
    skip = 1;
  }
  std::string_view in(b->raw);
  in.remove_prefix(skip);
  uint32_t n = 0;
  if (!GetVarint32(&in, &n) || n == 0 || n > in.size()) return bad;
  b->pages.resize(n);
  for (ColdPage& p : b->pages) {
    uint64_t zz = 0, span = 0;
    if (!GetVarint32(&in, &p.len) || !GetVarint64(&in, &zz) || !GetVarint64(&in, &span)) {
      return bad;
    }
    p.min_t = AbsTime(zz, start_);
    p.max_t = static_cast<Timestamp>(static_cast<uint64_t>(p.min_t) + span);
  }
  uint64_t at = b->raw.size() - in.size();
  for (ColdPage& p : b->pages) {
    if (p.len < compress::kPageHeaderSize || p.len > b->raw.size() - at) return bad;
    p.offset = static_cast<uint32_t>(at);
    at += p.len;
  }
  if (at != b->raw.size()) return bad;
  return Status::OK();
}

Status ColdFile::PagesOf(SeriesId series, Timestamp start, Timestamp end,
                         std::vector<ColdPage>* out) {
  const Entry* e = Find(series);
  if (e == nullptr || e->max_t < start || e->min_t > end) return Status::OK();
  MutexLock lock(&mu_);
  const Block* b = nullptr;
  SUNDIAL_RETURN_IF_ERROR(GetBlock(*e, &b));
  for (const ColdPage& p : b->pages) {
    if (p.max_t >= start && p.min_t <= end) out->push_back(p);
  }
  return Status::OK();
}

Status ColdFile::ReadPage(SeriesId series, const ColdPage& p, std::string* page) {
  const Entry* e = Find(series);
  if (e == nullptr) return Status::NotFound(path_, "series not in cold file");
  MutexLock lock(&mu_);
  const Block* b = nullptr;
  SUNDIAL_RETURN_IF_ERROR(GetBlock(*e, &b));
  if (!b->ts.empty()) {
    if (p.offset > b->ts.size() || p.len > b->ts.size() - p.offset || p.len == 0) {
      return Status::InvalidArgument(path_, "page outside its block");
    }
    compress::PageBuilder builder(compress::kMaxPageSize);
    for (uint32_t i = p.offset; i < p.offset + p.len; ++i) {
      if (!builder.Append(b->ts[i], b->vs[i])) {
        return Status::Corruption(path_, "cold points do not fit a page");
      }
    }
    page->assign(builder.data().data(), builder.data().size());
    return Status::OK();
  }
  if (p.offset > b->raw.size() || p.len > b->raw.size() - p.offset) {
    return Status::InvalidArgument(path_, "page outside its block");
  }
  page->assign(b->raw, p.offset, p.len);
  return Status::OK();
}

Status ColdFile::ReadPoints(SeriesId series, const ColdPage& p, std::vector<Timestamp>* ts,
                            std::vector<Value>* vs, bool* columnar) {
  *columnar = false;
  const Entry* e = Find(series);
  if (e == nullptr) return Status::NotFound(path_, "series not in cold file");
  MutexLock lock(&mu_);
  const Block* b = nullptr;
  SUNDIAL_RETURN_IF_ERROR(GetBlock(*e, &b));
  if (b->ts.empty()) return Status::OK();
  if (p.offset > b->ts.size() || p.len > b->ts.size() - p.offset) {
    return Status::InvalidArgument(path_, "page outside its block");
  }
  *columnar = true;
  ts->assign(b->ts.begin() + p.offset, b->ts.begin() + p.offset + p.len);
  vs->assign(b->vs.begin() + p.offset, b->vs.begin() + p.offset + p.len);
  return Status::OK();
}

Status ColdFile::ScanBlocks(Timestamp end) {
  // Candidates are found by their magic in bounded chunks; each is checked
  // by its header CRC, its data CRC and its page table before it counts.
  constexpr size_t kChunk = 1 << 20;
  constexpr size_t kHead = kColdBlockHeaderSize;
  std::vector<Entry> found;
  std::string chunk;
  uint64_t chunk_at = 0;  // file offset of chunk[0]
  uint64_t pos = kColdHeaderSize;
  size_t got = 0;
  while (pos + kHead <= file_size_) {
    if (pos < chunk_at || pos + 4 > chunk_at + chunk.size()) {
      const size_t want = static_cast<size_t>(std::min<uint64_t>(kChunk, file_size_ - pos));
      chunk.resize(want);
      SUNDIAL_RETURN_IF_ERROR(file_->Read(pos, want, &chunk[0], &got));
      chunk.resize(got);
      chunk_at = pos;
      if (got < 4) break;
    }
    const size_t at = chunk.find(kBlockMagic, static_cast<size_t>(pos - chunk_at), 4);
    if (at == std::string::npos) {
      pos = chunk_at + chunk.size() - 3;  // a magic may straddle two chunks
      if (pos + 4 > chunk_at + chunk.size() && chunk_at + chunk.size() >= file_size_) break;
      continue;
    }
    const uint64_t start = chunk_at + at;
    char head[kHead];
    SUNDIAL_RETURN_IF_ERROR(file_->Read(start, kHead, head, &got));
    Entry e;
    bool ok = got == kHead &&
              crc32c::Unmask(DecodeFixed32(head + 20)) == crc32c::Value(head, 20);
    if (ok) {
      e.id = DecodeFixed32(head + 4);
      e.comp_len = DecodeFixed32(head + 8);
      e.raw_len = DecodeFixed32(head + 12);
      e.crc = DecodeFixed32(head + 16);
      e.offset = start + kHead;
      ok = e.id < kInvalidSeriesId && e.raw_len <= kMaxBlockBytes &&
           e.comp_len <= file_size_ - e.offset;
    }
    if (ok) {
      MutexLock lock(&mu_);
      const Block* b = nullptr;
      ok = GetBlock(e, &b).ok() && !b->pages.empty();
      if (ok) {
        e.min_t = b->pages.front().min_t;
        e.max_t = b->pages.back().max_t;
        ok = e.min_t >= start_ && e.max_t < end && e.max_t >= e.min_t;
        pages_ += ok ? b->pages.size() : 0;
      }
      cache_.clear();
    }
    if (ok) {
      found.push_back(e);
      pos = e.offset + e.comp_len;
    } else {
      pos = start + 1;
    }
  }
  if (found.empty()) return Status::Corruption(path_, "no intact block");
  std::sort(found.begin(), found.end(), [](const Entry& a, const Entry& b) { return a.id < b.id; });
  for (const Entry& e : found) {
    if (entries_.empty() || entries_.back().id != e.id) entries_.push_back(e);
  }
  return Status::OK();
}

size_t ColdFile::MemoryUsage() {
  MutexLock lock(&mu_);
  size_t n = entries_.capacity() * sizeof(Entry);
  for (const auto& b : cache_) {
    n += b->raw.capacity() + b->ts.capacity() * sizeof(Timestamp) +
         b->vs.capacity() * sizeof(Value) +
         b->pages.capacity() * sizeof(ColdPage);
  }
  return n;
}

}  // namespace sundial::storage
