// ExpWriter (exp_writer.h).
#include "exp_writer.h"

#include <algorithm>
#include <limits>

#include "series_source.h"
#include "sundial/query/json_format.h"

namespace sundial::query {

ExpWriter::ExpWriter(const ExpRequest& req, uint64_t max_bytes, std::string* out)
    : req_(req), max_bytes_(max_bytes), out_(out) {
  out_->assign("{\"outputs\":[");
}

Status ExpWriter::CheckSize() const {
  if (max_bytes_ != 0 && out_->size() > max_bytes_) {
    return Status::ResourceExhausted(OutputBytesMessage(max_bytes_));
  }
  return Status::OK();
}

Status ExpWriter::WriteExpression(const ExpOutput& o, const ExpSet& set) {
  return WriteOutput(o, set, true);
}

Status ExpWriter::WriteMetric(const ExpOutput& o, const ExpSet& set) {
  return WriteOutput(o, set, false);
}

Status ExpWriter::WriteOutput(const ExpOutput& o, const ExpSet& set, bool trim) {
  if (!first_) out_->push_back(',');
  first_ = false;
  out_->append("{\"id\":");
  AppendJsonString(o.id, out_);
  if (o.has_alias) {
    out_->append(",\"alias\":");
    AppendJsonString(o.alias, out_);
  }
  SUNDIAL_RETURN_IF_ERROR(WriteRows(set, trim));
  if (!set.series.empty()) WriteMeta(set);
  out_->push_back('}');
  return CheckSize();
}

Status ExpWriter::WriteRows(const ExpSet& set, bool trim) {
  std::vector<Timestamp> times;
  for (const ExpSeries& s : set.series) MergeTimestamps(s.ts, &times);
  std::vector<size_t> cursor(set.series.size(), 0);
  // OpenTSDB's bookkeeping: an expression's first row sets firstTimestamp
  // and only later rows set lastTimestamp; a metric's firstTimestamp is
  // its first row (Long.MAX_VALUE when it has none).
  int64_t first_ts = trim ? std::numeric_limits<int64_t>::min()
                          : times.empty() ? std::numeric_limits<int64_t>::max() : times.front();
  int64_t last_ts = 0;
  uint64_t count = 0;
  out_->append(",\"dps\":[");
  for (const Timestamp t : times) {
    for (size_t i = 0; i < set.series.size(); ++i) {
      const ExpSeries& s = set.series[i];
      while (cursor[i] < s.ts.size() && s.ts[cursor[i]] < t) ++cursor[i];
    }
    if (trim && (t < req_.start_ms || t > req_.end_ms)) continue;
    if (count != 0) out_->push_back(',');
    out_->push_back('[');
    AppendInt(t, out_);
    if (!trim || first_ts != std::numeric_limits<int64_t>::min()) last_ts = t;
    if (trim && first_ts == std::numeric_limits<int64_t>::min()) first_ts = t;
    ++count;
    for (size_t i = 0; i < set.series.size(); ++i) {
      const ExpSeries& s = set.series[i];
      const bool here = cursor[i] < s.ts.size() && s.ts[cursor[i]] == t;
      out_->push_back(',');
      AppendJavaDouble(here ? s.values[cursor[i]] : set.fill, out_);
    }
    out_->push_back(']');
    if ((count & 1023) == 0) SUNDIAL_RETURN_IF_ERROR(CheckSize());
  }
  points_ += count * set.series.size();
  out_->append("],\"dpsMeta\":{\"firstTimestamp\":");
  AppendInt(trim && first_ts < 0 ? 0 : first_ts, out_);
  out_->append(",\"lastTimestamp\":");
  AppendInt(last_ts, out_);
  out_->append(",\"setCount\":");
  AppendInt(static_cast<int64_t>(count), out_);
  out_->append(",\"series\":");
  AppendInt(static_cast<int64_t>(set.series.size()), out_);
  out_->push_back('}');
  return Status::OK();
}

void ExpWriter::WriteMeta(const ExpSet& set) {
  out_->append(",\"meta\":[{\"index\":0,\"metrics\":[\"timestamp\"]}");
  // MetaSerializer resolves the metric names of the first series only and
  // reports them for every series.
  std::string metrics = "[";
  for (size_t m = 0; m < set.series[0].metrics.size(); ++m) {
    if (m) metrics.push_back(',');
    AppendJsonString(set.series[0].metrics[m], &metrics);
  }
  metrics.push_back(']');
  for (size_t i = 0; i < set.series.size(); ++i) {
    const ExpSeries& s = set.series[i];
    out_->append(",{\"index\":");
    AppendInt(static_cast<int64_t>(i + 1), out_);
    out_->append(",\"metrics\":");
    out_->append(metrics);
    out_->append(",\"commonTags\":{");
    for (size_t k = 0; k < s.tags.size(); ++k) {
      if (k) out_->push_back(',');
      AppendJsonString(s.tags[k].first, out_);
      out_->push_back(':');
      AppendJsonString(s.tags[k].second, out_);
    }
    out_->append("},\"aggregatedTags\":[");
    for (size_t k = 0; k < s.aggregated_tags.size(); ++k) {
      if (k) out_->push_back(',');
      AppendJsonString(s.aggregated_tags[k], out_);
    }
    out_->append("]}");
  }
  out_->push_back(']');
}

Status ExpWriter::Finish() {
  out_->append("],\"query\":");
  AppendExpRequestJson(req_, out_);
  out_->push_back('}');
  return CheckSize();
}

}  // namespace sundial::query
