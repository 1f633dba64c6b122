// WalReaderImpl: the WalReader (sundial/storage/wal_reader.h) over a Wal's
// segment files. It reads a segment through a LogReader bounded by what
// the Wal reports as written (Wal::End()), so a record being appended is
// never seen half-written, and moves to the next segment when one is
// complete.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "storage/record_log.h"
#include "storage/storage_impl.h"
#include "storage/wal.h"
#include "sundial/storage/wal_reader.h"

namespace sundial::storage {

class WalReaderImpl : public WalReader {
 public:
  // wal is borrowed and must outlive the reader.
  WalReaderImpl(Wal* wal, const WalPosition& from);
  ~WalReaderImpl() override;

  bool Next(std::vector<SeriesPoint>* points) override;
  WalPosition position() const override { return pos_; }
  void Seek(const WalPosition& pos) override;
  WalPosition End() override;
  Status Segments(std::vector<WalSegmentInfo>* out) override;
  std::vector<std::string> TakeWarnings() override;

 private:
  void CloseSegment();
  // Opens pos_.segment, or the next one present if it is gone. False if
  // there is none yet.
  bool OpenSegment(const WalPosition& end);
  // Moves pos_ to the first segment after it that exists (and is at most
  // end's). False if there is none.
  bool NextSegment(const WalPosition& end);

  Wal* const wal_;
  WalPosition pos_;
  std::unique_ptr<File> file_;
  std::unique_ptr<LogReader> log_;
  uint64_t limit_ = 0;         // the file size log_ was opened with
  size_t skipped_seen_ = 0;    // log_->skipped() entries already reported
  std::vector<std::string> warnings_;
};

}  // namespace sundial::storage
