#include "storage/record_log.h"

#include <algorithm>
#include <cstring>

#include "sundial/common/coding.h"
#include "sundial/common/crc32c.h"

namespace sundial::storage {
namespace {
constexpr size_t kReadChunk = 1u << 20;
}  // namespace

std::string LogFileHeader(std::string_view magic, uint32_t tag) {
  std::string h(magic.substr(0, 8));
  h.resize(8, ' ');
  PutFixed32(&h, 1);
  PutFixed32(&h, tag);
  return h;
}

void FinishLogRecord(std::string* buf, uint8_t type) {
  const size_t len = buf->size() - kLogRecordHeaderSize;
  char* p = &(*buf)[0];
  p[8] = static_cast<char>(type);
  EncodeFixed32(p + 4, static_cast<uint32_t>(len));
  EncodeFixed32(p, crc32c::Mask(crc32c::Value(p + 8, len + 1)));
}

void AppendLogRecord(std::string* dst, uint8_t type, std::string_view payload) {
  const size_t start = dst->size();
  dst->resize(start + kLogRecordHeaderSize);
  dst->append(payload.data(), payload.size());
  char* p = &(*dst)[start];
  p[8] = static_cast<char>(type);
  EncodeFixed32(p + 4, static_cast<uint32_t>(payload.size()));
  EncodeFixed32(p, crc32c::Mask(crc32c::Value(p + 8, payload.size() + 1)));
}

LogReader::LogReader(File* file, uint64_t file_size, std::string_view magic)
    : file_(file), file_size_(file_size), magic_(magic) {}

Status LogReader::Open() { return OpenHeader(false); }

Status LogReader::OpenAllocated() { return OpenHeader(true); }

Status LogReader::OpenHeader(bool zeros_are_unwritten) {
  char h[kLogFileHeaderSize];
  size_t got = 0;
  Status s = file_->Read(0, sizeof(h), h, &got);
  if (!s.ok()) return status_ = s;
  if (zeros_are_unwritten && got == sizeof(h) &&
      std::all_of(h, h + sizeof(h), [](char c) { return c == 0; })) {
    buf_offset_ = 0;  // Next() reads the header's block as zeros
    return Status::OK();
  }
  if (got < sizeof(h) || std::memcmp(h, magic_.data(), 8) != 0 || DecodeFixed32(h + 8) != 1) {
    return status_ = Status::Corruption(file_->path(), "bad or missing file header");
  }
  buf_offset_ = kLogFileHeaderSize;
  return Status::OK();
}

size_t LogReader::Ensure(size_t n) {
  if (buf_.size() - pos_ >= n) return n;
  buf_.erase(0, pos_);
  buf_offset_ += pos_;
  pos_ = 0;
  const uint64_t file_left = file_size_ - (buf_offset_ + buf_.size());
  size_t want = n - buf_.size();
  if (want < kReadChunk) want = kReadChunk;
  if (want > file_left) want = static_cast<size_t>(file_left);
  if (want > 0) {
    const size_t old = buf_.size();
    buf_.resize(old + want);
    size_t got = 0;
    Status s = file_->Read(buf_offset_ + old, want, &buf_[old], &got);
    buf_.resize(old + got);
    if (!s.ok()) status_ = s;
  }
  return buf_.size() < n ? buf_.size() : n;
}

const char* LogReader::Check(size_t* record_len) {
  if (Ensure(kLogRecordHeaderSize) < kLogRecordHeaderSize) return "truncated record header";
  const char* p = buf_.data() + pos_;
  const uint32_t len = DecodeFixed32(p + 4);
  if (len > kMaxLogRecordBytes) return "bad record length";
  if (p[8] == 0) return "bad record type";
  const size_t total = kLogRecordHeaderSize + len;
  if (buf_offset_ + pos_ + total > file_size_) return "truncated record";
  if (Ensure(total) < total) return "truncated record";
  p = buf_.data() + pos_;
  if (crc32c::Unmask(DecodeFixed32(p)) != crc32c::Value(p + 8, len + 1)) {
    return "bad checksum";
  }
  *record_len = total;
  return nullptr;
}

size_t LogReader::ZerosToBlockEnd() {
  const uint64_t here = buf_offset_ + pos_;
  const uint64_t block_end = (here / kLogBlockSize + 1) * kLogBlockSize;
  const size_t n = static_cast<size_t>(std::min(block_end, file_size_) - here);
  if (Ensure(n) < n) return 0;
  const char* p = buf_.data() + pos_;
  for (size_t i = 0; i < n; ++i) {
    if (p[i] != 0) return 0;
  }
  return n;
}

void LogReader::NoteSkip(uint64_t start, uint64_t end, const char* reason) {
  skipped_bytes_ += end - start;
  skipped_.push_back(file_->path() + ": skipped " + std::to_string(end - start) +
                     " bytes at offset " + std::to_string(start) + " (" + reason + ")");
}

bool LogReader::Next(uint8_t* type, std::string_view* payload) {
  if (!status_.ok()) return false;
  uint64_t skip_start = 0;
  const char* skip_reason = nullptr;
  bool zero_blocks = false;  // skipping whole zero blocks since skip_start
  for (;;) {
    const uint64_t here = buf_offset_ + pos_;
    if (here >= file_size_) break;
    size_t len = 0;
    const char* why = Check(&len);
    if (!status_.ok()) return false;
    if (why == nullptr) {
      if (skip_reason != nullptr) NoteSkip(skip_start, here, skip_reason);
      const char* p = buf_.data() + pos_;
      *type = static_cast<uint8_t>(p[8]);
      *payload = std::string_view(p + kLogRecordHeaderSize, len - kLogRecordHeaderSize);
      pos_ += len;
      end_of_valid_ = buf_offset_ + pos_;
      return true;
    }
    // Only where a record could start: at a record boundary, or after
    // whole zero blocks.
    if (skip_reason == nullptr || zero_blocks) {
      const size_t zeros = ZerosToBlockEnd();
      if (!status_.ok()) return false;
      if (zeros > 0) {
        if (skip_reason == nullptr && here % kLogBlockSize == 0) {
          skip_start = here;  // a whole block: padding never is
          skip_reason = "zeroed blocks";
          zero_blocks = true;
        }
        pos_ += zeros;
        continue;
      }
    }
    if (skip_reason == nullptr) {
      skip_start = here;
      skip_reason = why;
    }
    zero_blocks = false;
    ++pos_;  // resynchronise one byte further on
  }
  // Zero blocks up to the end of the file are space allocated ahead.
  if (skip_reason != nullptr && !zero_blocks) NoteSkip(skip_start, file_size_, skip_reason);
  return false;
}

}  // namespace sundial::storage
