#include "put_line_checker.h"

#include "sundial/ingest/ingest_stats.h"
#include "sundial/ingest/point_rules.h"
#include "sundial/ingest/telnet_put_handler.h"
#include "sundial/storage/storage.h"

namespace sundial::server {

namespace {

// A storage that accepts every series (each resolve gets a new id: ids are
// only compared with each other through the handler's own cache) and every
// point, and keeps nothing.
class AcceptAllStorage final : public storage::Storage {
 public:
  Status ResolveSeries(std::string_view, const storage::TagRef*, size_t, SeriesId* id) override {
    next_id_ = next_id_ + 1 == kInvalidSeriesId ? 0 : next_id_ + 1;
    *id = next_id_;
    return Status::OK();
  }
  Status Append(const storage::SeriesPoint*, size_t) override { return Status::OK(); }
  Status Sync() override { return Status::OK(); }
  std::unique_ptr<SampleIterator> NewIterator(SeriesId, Timestamp, Timestamp) override {
    return nullptr;
  }
  Status LastPoint(SeriesId, Sample*) override { return Status::NotFound("no points here"); }
  std::vector<SeriesId> SeriesOfMetric(std::string_view) override { return {}; }
  std::vector<SeriesId> SeriesWithTag(std::string_view, std::string_view) override { return {}; }
  Status GetSeriesKey(SeriesId, storage::SeriesKey*) override {
    return Status::NotFound("no series here");
  }
  Status GetSeriesKeyRef(SeriesId, storage::SeriesKeyRef*) override {
    return Status::NotFound("no series here");
  }
  Status LookupUid(storage::NameKind, std::string_view, uint32_t* uid) override {
    *uid = 1;  // every name is known
    return Status::OK();
  }
  std::vector<std::string> SuggestNames(storage::NameKind, std::string_view, size_t) override {
    return {};
  }
  storage::StorageStats stats() override { return {}; }

 private:
  SeriesId next_id_ = 0;
};

ingest::IngestOptions CheckerOptions(ingest::IngestOptions o) {
  o.auto_create_metrics = true;
  return o;
}

}  // namespace

struct PutLineChecker::Impl {
  explicit Impl(const ingest::IngestOptions& o)
      : options(CheckerOptions(o)), rules(options), handler(&storage, &options, &rules, &stats) {}

  AcceptAllStorage storage;
  const ingest::IngestOptions options;
  const ingest::PointRules rules;
  ingest::IngestStats stats;
  ingest::TelnetPutHandler handler;
};

PutLineChecker::PutLineChecker(const ingest::IngestOptions& options)
    : impl_(std::make_unique<Impl>(options)) {}

PutLineChecker::~PutLineChecker() = default;

void PutLineChecker::Check(std::string_view put_line, std::string* reply) {
  impl_->handler.HandlePut(put_line, reply);
  if (impl_->handler.pending() > 0) (void)impl_->handler.Flush(reply);  // never fails here
}

}  // namespace sundial::server
