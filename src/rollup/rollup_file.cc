#include "sundial/rollup/rollup_file.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include "rollup/file_util.h"
#include "sundial/common/coding.h"
#include "sundial/common/crc32c.h"
#include "sundial/common/decimal.h"

namespace sundial::rollup {
namespace {

constexpr char kMagic[8] = {'S', 'U', 'N', 'D', 'R', 'L', 'P', '1'};
constexpr char kFooterMagic[4] = {'R', 'L', 'P', 'E'};
constexpr size_t kFlushBytes = 64 * 1024;
constexpr uint32_t kFlagNaN = 1;
constexpr uint32_t kFlagIntegral = 2;
constexpr double kTwo53 = 9007199254740992.0;
constexpr uint64_t kMaxNearXor = uint64_t{1} << 28;

enum Field { kFirst, kLast, kSum, kMin, kMax, kFields };

// ---- value coding ----

void PutValue(double d, int64_t* prev, std::string* out) {
  if (d == std::trunc(d) && std::fabs(d) < kTwo53 && !(d == 0 && std::signbit(d))) {
    const auto i = static_cast<int64_t>(d);
    PutVarint64(out, ZigZagEncode64(i - *prev) << 2);
    *prev = i;
    return;
  }
  if (std::isfinite(d) && d != 0 && std::fabs(d) < 1e12) {
    for (uint32_t k = 1; k <= 3; ++k) {
      int64_t i;
      if (!DecimalFits(d, static_cast<int>(k), &i)) continue;
      PutVarint64(out, (ZigZagEncode64(i - *prev) << 4) | (k << 2) | 1);
      *prev = i;
      return;
    }
    // Near a decimal (a sum of decimals, say): the decimal plus the XOR of
    // the two bit patterns, which differ in a few low bits.
    for (uint32_t k = 1; k <= 3; ++k) {
      const double s = std::nearbyint(d * kPow10[k]);
      if (std::fabs(s) >= kTwo53 || s == 0) break;
      const uint64_t x = DoubleToBits(s / kPow10[k]) ^ DoubleToBits(d);
      if (x >= kMaxNearXor) continue;
      const auto i = static_cast<int64_t>(s);
      PutVarint64(out, (ZigZagEncode64(i - *prev) << 4) | (k << 2) | 3);
      PutVarint64(out, x);
      *prev = i;
      return;
    }
  }
  PutVarint64(out, 2);
  PutFixed64(out, DoubleToBits(d));
}

bool GetValue(std::string_view* in, int64_t* prev, double* d) {
  uint64_t tag = 0;
  if (!GetVarint64(in, &tag)) return false;
  switch (tag & 3) {
    case 0: {
      const int64_t i = static_cast<int64_t>(static_cast<uint64_t>(*prev) +
                                             static_cast<uint64_t>(ZigZagDecode64(tag >> 2)));
      if (std::llabs(i) >= (int64_t{1} << 53)) return false;
      *prev = i;
      *d = static_cast<double>(i);
      return true;
    }
    case 1: {
      const uint32_t k = static_cast<uint32_t>((tag >> 2) & 3);
      if (k == 0) return false;
      const int64_t i = static_cast<int64_t>(static_cast<uint64_t>(*prev) +
                                             static_cast<uint64_t>(ZigZagDecode64(tag >> 4)));
      if (std::llabs(i) >= (int64_t{1} << 53)) return false;
      *prev = i;
      *d = static_cast<double>(i) / kPow10[k];
      return true;
    }
    case 3: {
      const uint32_t k = static_cast<uint32_t>((tag >> 2) & 3);
      uint64_t x = 0;
      if (k == 0 || !GetVarint64(in, &x) || x >= kMaxNearXor) return false;
      const int64_t i = static_cast<int64_t>(static_cast<uint64_t>(*prev) +
                                             static_cast<uint64_t>(ZigZagDecode64(tag >> 4)));
      if (std::llabs(i) >= (int64_t{1} << 53)) return false;
      *prev = i;
      *d = BitsToDouble(DoubleToBits(static_cast<double>(i) / kPow10[k]) ^ x);
      return true;
    }
    case 2: {
      if (tag != 2) return false;
      uint64_t bits = 0;
      if (!GetFixed64(in, &bits)) return false;
      *d = BitsToDouble(bits);
      return true;
    }
  }
  return false;
}

Status Bad(const char* what) { return Status::Corruption("rollup block", what); }

}  // namespace

// ---- blocks ----

void EncodeBlock(SeriesId id, Timestamp day_start, const std::vector<HourStats>& hours,
                 std::string* out) {
  PutVarint32(out, id);
  PutVarint32(out, static_cast<uint32_t>(hours.size()));
  int64_t prev[kFields] = {0, 0, 0, 0, 0};
  int64_t prev_hour = -1;
  int64_t prev_off = 0, prev_span = 0;
  for (const HourStats& h : hours) {
    const int64_t hour = (h.hour - day_start) / kHourMs;
    uint32_t flags = (h.nan_count > 0 ? kFlagNaN : 0) | (h.integral ? kFlagIntegral : 0);
    PutVarint32(out, static_cast<uint32_t>(((hour - prev_hour - 1) << 2) | flags));
    prev_hour = hour;
    PutVarint64(out, h.count);
    if (h.nan_count > 0) PutVarint64(out, h.nan_count);
    const int64_t off = h.first_t - h.hour, span = h.last_t - h.first_t;
    PutVarint64(out, ZigZagEncode64(off - prev_off));
    PutVarint64(out, ZigZagEncode64(span - prev_span));
    prev_off = off;
    prev_span = span;
    PutValue(h.first, &prev[kFirst], out);
    PutValue(h.last, &prev[kLast], out);
    if (h.valid() > 0) {
      PutValue(h.sum, &prev[kSum], out);
      PutValue(h.min_run, &prev[kMin], out);
      PutValue(h.max_run, &prev[kMax], out);
    }
  }
}

Status DecodeBlock(std::string_view in, Timestamp day_start, SeriesId* id,
                   std::vector<HourStats>* hours) {
  hours->clear();
  uint32_t n = 0;
  if (!GetVarint32(&in, id) || !GetVarint32(&in, &n)) return Bad("truncated header");
  if (n == 0 || n > 24) return Bad("bad record count");
  int64_t prev[kFields] = {0, 0, 0, 0, 0};
  int64_t prev_hour = -1;
  int64_t prev_off = 0, prev_span = 0;
  for (uint32_t r = 0; r < n; ++r) {
    uint32_t head = 0;
    HourStats h;
    if (!GetVarint32(&in, &head)) return Bad("truncated record");
    const int64_t hour = prev_hour + 1 + (head >> 2);
    if (hour > 23) return Bad("hour out of range");
    prev_hour = hour;
    h.hour = day_start + hour * kHourMs;
    h.integral = (head & kFlagIntegral) != 0;
    uint64_t zoff = 0, zspan = 0;
    if (!GetVarint64(&in, &h.count)) return Bad("truncated count");
    if ((head & kFlagNaN) != 0 && !GetVarint64(&in, &h.nan_count)) return Bad("truncated NaN");
    if (!GetVarint64(&in, &zoff) || !GetVarint64(&in, &zspan)) return Bad("truncated times");
    // Deltas of in-range values: anything larger than an hour is damage.
    const int64_t doff = ZigZagDecode64(zoff), dspan = ZigZagDecode64(zspan);
    if (doff <= -kHourMs || doff >= kHourMs || dspan <= -kHourMs || dspan >= kHourMs) {
      return Bad("inconsistent times");
    }
    const int64_t off = prev_off + doff, span = prev_span + dspan;
    if (h.count == 0 || h.nan_count > h.count || off < 0 || off >= kHourMs || span < 0 ||
        span >= kHourMs - off) {
      return Bad("inconsistent record");
    }
    prev_off = off;
    prev_span = span;
    h.first_t = h.hour + off;
    h.last_t = h.first_t + span;
    if (!GetValue(&in, &prev[kFirst], &h.first) || !GetValue(&in, &prev[kLast], &h.last)) {
      return Bad("truncated value");
    }
    if (h.valid() > 0) {
      if (!GetValue(&in, &prev[kSum], &h.sum) || !GetValue(&in, &prev[kMin], &h.min_run) ||
          !GetValue(&in, &prev[kMax], &h.max_run)) {
        return Bad("truncated value");
      }
    }
    hours->push_back(h);
  }
  if (!in.empty()) return Bad("trailing bytes");
  return Status::OK();
}

std::string DayFileName(Timestamp day_start) { return std::to_string(day_start) + ".rlp"; }

bool ParseDayFileName(std::string_view name, Timestamp* day_start) {
  if (name.size() < 5 || name.size() > 24 || name.substr(name.size() - 4) != ".rlp") return false;
  const std::string digits(name.substr(0, name.size() - 4));
  char* end = nullptr;
  errno = 0;
  const long long v = std::strtoll(digits.c_str(), &end, 10);
  if (errno != 0 || end != digits.c_str() + digits.size() || digits.empty()) return false;
  if (v % kDayMs != 0) return false;
  *day_start = v;
  return true;
}

// ---- writer ----

DayFileWriter::~DayFileWriter() = default;

Status DayFileWriter::Open(Env* env, const std::string& path, Timestamp day_start) {
  path_ = path;
  day_start_ = day_start;
  SUNDIAL_RETURN_IF_ERROR(env->OpenFile(path, &file_));
  SUNDIAL_RETURN_IF_ERROR(file_->Truncate(0));
  written_ = 0;
  buf_.assign(kMagic, sizeof(kMagic));
  PutFixed32(&buf_, kRollupFileVersion);
  PutFixed64(&buf_, static_cast<uint64_t>(day_start));
  PutFixed32(&buf_, crc32c::Mask(crc32c::Value(buf_.data(), buf_.size())));
  offset_ = buf_.size();
  return Status::OK();
}

Status DayFileWriter::Flush() {
  Status s = file_->Write(written_, buf_.data(), buf_.size());
  written_ += buf_.size();
  buf_.clear();
  return s;
}

Status DayFileWriter::Add(SeriesId id, const std::vector<HourStats>& hours) {
  block_.clear();
  EncodeBlock(id, day_start_, hours, &block_);
  ids_.push_back(id);
  offsets_.push_back(offset_);
  PutFixed32(&buf_, static_cast<uint32_t>(block_.size()));
  buf_ += block_;
  PutFixed32(&buf_, crc32c::Mask(crc32c::Value(block_.data(), block_.size())));
  offset_ += 8 + block_.size();
  if (buf_.size() >= kFlushBytes) return Flush();
  return Status::OK();
}

Status DayFileWriter::Finish() {
  std::string index;
  PutVarint32(&index, static_cast<uint32_t>(ids_.size()));
  SeriesId prev_id = 0;
  uint64_t prev_off = kRollupHeaderBytes;
  for (size_t i = 0; i < ids_.size(); ++i) {
    PutVarint32(&index, ids_[i] - prev_id);
    PutVarint64(&index, offsets_[i] - prev_off);
    prev_id = ids_[i];
    prev_off = offsets_[i];
  }
  const uint64_t index_offset = offset_;
  PutFixed32(&buf_, static_cast<uint32_t>(index.size()));
  buf_ += index;
  PutFixed32(&buf_, crc32c::Mask(crc32c::Value(index.data(), index.size())));
  PutFixed64(&buf_, index_offset);
  PutFixed32(&buf_, static_cast<uint32_t>(ids_.size()));
  buf_.append(kFooterMagic, sizeof(kFooterMagic));
  offset_ += 8 + index.size() + kRollupFooterBytes;
  SUNDIAL_RETURN_IF_ERROR(Flush());
  SUNDIAL_RETURN_IF_ERROR(file_->Sync());
  file_.reset();
  return Status::OK();
}

// ---- reader ----

DayFileReader::~DayFileReader() = default;

Status DayFileReader::ReadAt(uint64_t offset, size_t n, std::string* out) const {
  return PReadExact(file_.get(), offset, n, out);
}

Status DayFileReader::Open(Env* env, const std::string& path, Timestamp day_start,
                           std::unique_ptr<DayFileReader>* out) {
  std::unique_ptr<DayFileReader> r(new DayFileReader);
  r->path_ = path;
  r->day_start_ = day_start;
  SUNDIAL_RETURN_IF_ERROR(env->OpenReadOnlyFile(path, &r->file_));
  SUNDIAL_RETURN_IF_ERROR(r->file_->Size(&r->file_bytes_));
  const auto bad = [&](const char* what) { return Status::Corruption(path, what); };
  if (r->file_bytes_ < kRollupHeaderBytes + kRollupFooterBytes + 8) return bad("too short");
  std::string head, foot, index;
  SUNDIAL_RETURN_IF_ERROR(r->ReadAt(0, kRollupHeaderBytes, &head));
  if (std::memcmp(head.data(), kMagic, sizeof(kMagic)) != 0) return bad("bad magic");
  if (crc32c::Unmask(DecodeFixed32(head.data() + 20)) != crc32c::Value(head.data(), 20)) {
    return bad("header checksum");
  }
  if (DecodeFixed32(head.data() + 8) != kRollupFileVersion) return bad("unknown version");
  if (static_cast<Timestamp>(DecodeFixed64(head.data() + 12)) != day_start) return bad("wrong day");
  SUNDIAL_RETURN_IF_ERROR(r->ReadAt(r->file_bytes_ - kRollupFooterBytes, kRollupFooterBytes, &foot));
  if (std::memcmp(foot.data() + 12, kFooterMagic, 4) != 0) return bad("bad footer");
  r->index_offset_ = DecodeFixed64(foot.data());
  const uint32_t n = DecodeFixed32(foot.data() + 8);
  const uint64_t index_end = r->file_bytes_ - kRollupFooterBytes;
  if (r->index_offset_ < kRollupHeaderBytes || r->index_offset_ + 8 > index_end) {
    return bad("index offset");
  }
  SUNDIAL_RETURN_IF_ERROR(r->ReadAt(r->index_offset_, static_cast<size_t>(index_end - r->index_offset_), &index));
  const uint32_t len = DecodeFixed32(index.data());
  if (uint64_t{len} + 8 != index.size()) return bad("index length");
  std::string_view payload(index.data() + 4, len);
  if (crc32c::Unmask(DecodeFixed32(index.data() + 4 + len)) !=
      crc32c::Value(payload.data(), payload.size())) {
    return bad("index checksum");
  }
  uint32_t count = 0;
  if (!GetVarint32(&payload, &count) || count != n || count > payload.size()) return bad("index count");
  r->ids_.reserve(count);
  r->offsets_.reserve(count);
  uint64_t prev_id = 0, off = kRollupHeaderBytes;
  for (uint32_t i = 0; i < count; ++i) {
    uint32_t did = 0;
    uint64_t doff = 0;
    if (!GetVarint32(&payload, &did) || !GetVarint64(&payload, &doff)) return bad("index entry");
    const uint64_t id = prev_id + did;
    if ((i > 0 && did == 0) || id > 0xFFFFFFFFull) return bad("index order");
    if ((i > 0 && doff < 9) || doff > r->index_offset_ - off) return bad("index offset order");
    off += doff;
    prev_id = id;
    r->ids_.push_back(static_cast<SeriesId>(id));
    r->offsets_.push_back(off);
  }
  if (!payload.empty()) return bad("index trailing bytes");
  if (!r->offsets_.empty() && r->index_offset_ - r->offsets_.back() < 8) return bad("last block");
  *out = std::move(r);
  return Status::OK();
}

Status DayFileReader::Read(SeriesId id, std::vector<HourStats>* hours) const {
  hours->clear();
  auto it = std::lower_bound(ids_.begin(), ids_.end(), id);
  if (it == ids_.end() || *it != id) return Status::OK();
  const size_t i = static_cast<size_t>(it - ids_.begin());
  const uint64_t start = offsets_[i];
  const uint64_t end = i + 1 < offsets_.size() ? offsets_[i + 1] : index_offset_;
  std::string block;
  SUNDIAL_RETURN_IF_ERROR(ReadAt(start, static_cast<size_t>(end - start), &block));
  const uint32_t len = DecodeFixed32(block.data());
  if (uint64_t{len} + 8 != block.size()) return Status::Corruption(path_, "block length");
  std::string_view payload(block.data() + 4, len);
  if (crc32c::Unmask(DecodeFixed32(block.data() + 4 + len)) !=
      crc32c::Value(payload.data(), payload.size())) {
    return Status::Corruption(path_, "block checksum");
  }
  SeriesId got = 0;
  SUNDIAL_RETURN_IF_ERROR(DecodeBlock(payload, day_start_, &got, hours).WithContext(path_));
  if (got != id) return Status::Corruption(path_, "block of another series");
  return Status::OK();
}

}  // namespace sundial::rollup
