#include "sundial/ingest/series_resolver.h"

namespace sundial::ingest {

SeriesResolver::SeriesResolver(storage::Storage* storage, const IngestOptions* options,
                               const PointRules* rules, bool require_tag, bool opentsdb_names)
    : storage_(storage), options_(options), rules_(rules), require_tag_(require_tag),
      opentsdb_names_(opentsdb_names),
      cache_(options->series_cache_entries),
      name_epoch_(storage->name_epoch()),
      seen_epoch_(name_epoch_ != nullptr ? name_epoch_->load(std::memory_order_acquire) : 0) {}

bool SeriesResolver::Resolve(std::string_view metric, const storage::TagRef* tags,
                             size_t num_tags, std::string_view metric_text,
                             std::string_view tag_text, SeriesId* id, PutError* error) {
  ++misses_;
  const bool names_ok =
      opentsdb_names_
          ? rules_->CheckMetricAndTags(metric, tags, num_tags, error, require_tag_)
          : rules_->CheckTagCountAndText(metric, tags, num_tags, error, require_tag_);
  if (!names_ok) return false;
  if (!options_->auto_create_metrics) {
    uint32_t uid;
    if (!storage_->LookupUid(storage::NameKind::kMetric, metric, &uid).ok()) {
      error->kind = PutErrorKind::kUnknownMetric;
      error->message = "No such name for 'metrics': '";
      error->message += metric;
      error->message += "'";
      return false;
    }
  }
  const Status s = storage_->ResolveSeries(metric, tags, num_tags, id);
  if (s.IsResourceExhausted()) {
    // The series limit: this point is refused like a bad one, and the
    // other points of the request (known series) are still stored.
    error->kind = PutErrorKind::kIllegalArgument;
    error->message = s.message();
    return false;
  }
  if (!s.ok()) {
    error->kind = PutErrorKind::kStorage;
    error->message = s.ToString();
    return false;
  }
  cache_.Insert(metric_text, tag_text, *id);
  return true;
}

}  // namespace sundial::ingest
