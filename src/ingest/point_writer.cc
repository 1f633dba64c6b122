#include "sundial/ingest/point_writer.h"

namespace sundial::ingest {

PointWriter::PointWriter(storage::Storage* storage, const IngestOptions* options,
                         const PointRules* rules, IngestStats* stats, Protocol protocol,
                         TagPolicy tag_policy, NamePolicy name_policy)
    : storage_(storage), stats_(stats), protocol_(protocol),
      max_batch_(options->max_batch_points > 0 ? options->max_batch_points : 1),
      resolver_(storage, options, rules, tag_policy == TagPolicy::kAtLeastOne,
                name_policy == NamePolicy::kOpenTsdb) {}

PointWriter::~PointWriter() { PublishStats(); }

void PointWriter::Reject(PutErrorKind kind) {
  ++rejected_;
  switch (kind) {
    case PutErrorKind::kInvalidValue: ++invalid_values_; break;
    case PutErrorKind::kIllegalArgument: ++illegal_arguments_; break;
    case PutErrorKind::kUnknownMetric: ++unknown_metrics_; break;
    case PutErrorKind::kStorage:
      stats_->storage_errors.fetch_add(1, std::memory_order_relaxed);
      break;
  }
}

Status PointWriter::Flush(size_t* points) {
  constexpr auto kRelaxed = std::memory_order_relaxed;
  Status s;
  const size_t n = batch_.size();
  if (points != nullptr) *points = n;
  if (n > 0) {
    s = storage_->Append(batch_.data(), n);
    if (s.ok()) {
      stats_->points_stored.fetch_add(n, kRelaxed);
      stats_->of(protocol_).accepted.fetch_add(n, kRelaxed);
    } else {
      stats_->storage_errors.fetch_add(n, kRelaxed);
      rejected_ += n;
    }
    batch_.clear();
  }
  PublishStats();
  return s;
}

void PointWriter::PublishStats() {
  constexpr auto kRelaxed = std::memory_order_relaxed;
  if (rejected_) stats_->of(protocol_).rejected.fetch_add(rejected_, kRelaxed);
  if (invalid_values_) stats_->invalid_values.fetch_add(invalid_values_, kRelaxed);
  if (illegal_arguments_) stats_->illegal_arguments.fetch_add(illegal_arguments_, kRelaxed);
  if (unknown_metrics_) stats_->unknown_metrics.fetch_add(unknown_metrics_, kRelaxed);
  const size_t misses = resolver_.misses();
  if (misses != misses_published_) {
    stats_->series_cache_misses.fetch_add(misses - misses_published_, kRelaxed);
    misses_published_ = misses;
  }
  rejected_ = invalid_values_ = illegal_arguments_ = unknown_metrics_ = 0;
}

}  // namespace sundial::ingest
