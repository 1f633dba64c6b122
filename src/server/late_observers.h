// LateObservers: several late-point observers handed to the storage as
// one (StorageOptions::late_observer takes one). Its watermark is the
// highest of theirs; each is given every batch and picks its own points
// below its own watermark, as the LateAppendObserver contract lets it.
//
// Thread-safety: Add() before the storage opens; the rest as the contract.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "sundial/storage/storage.h"

namespace sundial::server {

class LateObservers final : public storage::LateAppendObserver {
 public:
  // o is borrowed and must outlive the storage.
  void Add(storage::LateAppendObserver* o) { list_.push_back(o); }
  bool empty() const { return list_.empty(); }

  Timestamp late_watermark() const override {
    Timestamp m = kMinTimestamp;
    for (const auto* o : list_) m = std::max(m, o->late_watermark());
    return m;
  }
  void OnLateAppend(const storage::SeriesPoint* points, size_t n) override {
    for (auto* o : list_) o->OnLateAppend(points, n);
  }
  uint64_t wal_seen() const override {
    uint64_t m = UINT64_MAX;
    for (const auto* o : list_) m = std::min(m, o->wal_seen());
    return list_.empty() ? 0 : m;
  }
  Status SyncLate() override {
    for (auto* o : list_) SUNDIAL_RETURN_IF_ERROR(o->SyncLate());
    return Status::OK();
  }

 private:
  std::vector<storage::LateAppendObserver*> list_;
};

}  // namespace sundial::server
