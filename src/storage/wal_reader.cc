#include "storage/wal_reader_impl.h"

#include <algorithm>

#include "storage/record_log.h"

namespace sundial::storage {

WalReaderImpl::WalReaderImpl(Wal* wal, const WalPosition& from) : wal_(wal), pos_(from) {}

WalReaderImpl::~WalReaderImpl() = default;

WalPosition WalReaderImpl::End() { return wal_->End(); }

void WalReaderImpl::Seek(const WalPosition& pos) {
  pos_ = pos;
  CloseSegment();
}

void WalReaderImpl::CloseSegment() {
  log_.reset();
  file_.reset();
  limit_ = 0;
  skipped_seen_ = 0;
}

Status WalReaderImpl::Segments(std::vector<WalSegmentInfo>* out) {
  out->clear();
  std::vector<std::string> names;
  SUNDIAL_RETURN_IF_ERROR(wal_->env()->ListDir(wal_->dir(), &names));
  for (const std::string& name : names) {
    WalSegmentInfo info;
    if (!ParseWalSegmentName(name, &info.segment)) continue;
    if (!wal_->env()->GetFileSize(wal_->dir() + "/" + name, &info.size).ok()) continue;
    out->push_back(info);
  }
  std::sort(out->begin(), out->end(),
            [](const WalSegmentInfo& a, const WalSegmentInfo& b) { return a.segment < b.segment; });
  return Status::OK();
}

std::vector<std::string> WalReaderImpl::TakeWarnings() {
  std::vector<std::string> w;
  w.swap(warnings_);
  return w;
}

bool WalReaderImpl::NextSegment(const WalPosition& end) {
  std::vector<WalSegmentInfo> segments;
  if (!Segments(&segments).ok()) return false;
  for (const WalSegmentInfo& s : segments) {
    if (s.segment > pos_.segment && s.segment <= end.segment) {
      if (s.segment != pos_.segment + 1) {
        warnings_.push_back("WAL segments " + std::to_string(pos_.segment + 1) + ".." +
                            std::to_string(s.segment - 1) + " are gone; skipped");
      }
      Seek(WalPosition{s.segment, 0});
      return true;
    }
  }
  return false;
}

bool WalReaderImpl::OpenSegment(const WalPosition& end) {
  const std::string path = wal_->dir() + "/" + WalSegmentName(pos_.segment);
  if (!wal_->env()->FileExists(path) ||
      !wal_->env()->OpenReadOnlyFile(path, &file_).ok()) {
    file_.reset();
    if (pos_.segment >= end.segment) return false;  // not created yet
    const uint64_t gone = pos_.segment;
    if (!NextSegment(end)) return false;
    if (pos_.segment == gone + 1) {
      warnings_.push_back("WAL segment " + std::to_string(gone) + " is gone; skipped");
    }
    return OpenSegment(end);
  }
  return true;
}

bool WalReaderImpl::Next(std::vector<SeriesPoint>* points) {
  const auto add = [points](const SeriesPoint& p) { points->push_back(p); };
  // Each turn reads one record or moves one segment on; bounded so that a
  // long run of unknown records returns control to the caller.
  for (int turn = 0; turn < 4096; ++turn) {
    const WalPosition end = wal_->End();
    if (end < pos_ && pos_.segment >= end.segment) return false;
    if (!file_ && !OpenSegment(end)) return false;
    uint64_t limit = 0;
    if (pos_.segment == end.segment) {
      limit = end.offset;
    } else if (!file_->Size(&limit).ok()) {
      return false;
    }
    if (!log_ || limit != limit_) {
      log_ = std::make_unique<LogReader>(file_.get(), limit, kWalSegmentMagic);
      limit_ = limit;
      skipped_seen_ = 0;
      if (pos_.offset < kLogFileHeaderSize) {
        if (limit < kLogFileHeaderSize) return false;  // header not yet written
        if (!log_->OpenAllocated().ok()) {
          warnings_.push_back(file_->path() + ": damaged header; reading the records after it");
          log_->OpenSkippingHeader();
        }
        pos_.offset = kLogFileHeaderSize;
      } else {
        log_->Seek(pos_.offset);
      }
    }
    uint8_t type = 0;
    std::string_view payload;
    const bool got = log_->Next(&type, &payload);
    const std::vector<std::string>& skipped = log_->skipped();
    for (; skipped_seen_ < skipped.size(); ++skipped_seen_) warnings_.push_back(skipped[skipped_seen_]);
    const uint64_t reached = got ? log_->end_of_valid() : limit;
    if (got) {
      pos_.offset = reached;
      const size_t before = points->size();
      // Other types (deletes, future records) are not points: skipped.
      const bool ok = !IsWalPointsRecord(type) || DecodeWalPoints(type, payload, add);
      if (!ok) {
        points->resize(before);
        warnings_.push_back(file_->path() + ": undecodable batch skipped");
      }
      if (points->size() > before) return true;
      continue;
    }
    if (!log_->status().ok()) {
      warnings_.push_back(log_->status().ToString());
      CloseSegment();
      return false;
    }
    if (!skipped.empty()) {
      pos_.offset = limit;  // the damage up to the limit is behind us
      log_.reset();
    }
    if (pos_.segment >= end.segment) return false;  // caught up with the tail
    if (!NextSegment(end)) return false;
  }
  return false;
}

Status StorageImpl::NewWalReader(const WalPosition& from, std::unique_ptr<WalReader>* out) {
  out->reset(new WalReaderImpl(wal_.get(), from));
  return Status::OK();
}

}  // namespace sundial::storage
