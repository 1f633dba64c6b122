#include "sundial/ingest/tagged_writer.h"

#include <algorithm>
#include <string>

namespace sundial::ingest {

TaggedWriter::TaggedWriter(storage::Storage* storage, const IngestOptions* options)
    : storage_(storage),
      options_(options),
      max_batch_(std::max<size_t>(1, options->max_batch_points)),
      cache_(options->series_cache_entries) {}

Status TaggedWriter::Resolve(std::string_view metric, const storage::TagRef* tags,
                             size_t num_tags, std::string_view metric_key,
                             std::string_view tag_key, SeriesId* id) {
  ++misses_;
  if (num_tags > options_->max_tags) {
    return Status::InvalidArgument("too many tags: " + std::to_string(num_tags) +
                                       ", at most " + std::to_string(options_->max_tags),
                                   metric);
  }
  if (!options_->auto_create_metrics) {
    uint32_t uid = 0;
    if (!storage_->LookupUid(storage::NameKind::kMetric, metric, &uid).ok()) {
      return Status::NotFound("unknown metric (auto-creation is off)", metric);
    }
  }
  SUNDIAL_RETURN_IF_ERROR(storage_->ResolveSeries(metric, tags, num_tags, id));
  cache_.Insert(metric_key, tag_key, *id);
  return Status::OK();
}

Status TaggedWriter::Flush() {
  if (batch_.empty()) return Status::OK();
  const Status s = storage_->Append(batch_.data(), batch_.size());
  batch_.clear();
  return s;
}

}  // namespace sundial::ingest
