#include "sundial/ingest/graphite_handler.h"

namespace sundial::ingest {

GraphiteHandler::GraphiteHandler(storage::Storage* storage, const IngestOptions* options,
                                 const PointRules* rules, IngestStats* stats)
    : writer_(storage, options, rules, stats, Protocol::kGraphite, TagPolicy::kAny,
              NamePolicy::kPlainText) {}

void GraphiteHandler::Reject(std::string_view line, const Status& why, GraphiteOutcome* out) {
  ++out->rejected;
  if (out->first_error.empty()) {
    out->first_error = why.ToString() + " in line \"" + std::string(line.substr(0, 200)) + "\"";
  }
}

void GraphiteHandler::Flush(GraphiteOutcome* out) {
  size_t pending = 0;
  const Status s = writer_.Flush(&pending);
  if (s.ok()) {
    out->stored += pending;
  } else if (out->storage_status.ok()) {
    out->storage_status = s;
  }
}

void GraphiteHandler::HandleLine(std::string_view line, Timestamp now_ms, GraphiteOutcome* out) {
  if (line.find_first_not_of(" \t") == std::string_view::npos) return;  // blank
  ++out->lines;
  GraphitePoint p;
  Status s = ParseGraphiteLine(line, now_ms, &p);
  if (!s.ok()) {
    writer_.Reject(PutErrorKind::kIllegalArgument);
    return Reject(line, s, out);
  }
  SeriesId id = writer_.Lookup(p.path, p.tag_text);
  if (id == kInvalidSeriesId) {
    s = ParseGraphiteTags(p.tag_text, &tags_);
    if (!s.ok()) {
      writer_.Reject(PutErrorKind::kIllegalArgument);
      return Reject(line, s, out);
    }
    ++out->series_misses;
    if (!writer_.Resolve(p.path, tags_.data(), tags_.size(), p.path, p.tag_text, &id,
                         &error_)) {
      writer_.Reject(error_.kind);
      if (error_.kind == PutErrorKind::kStorage && out->storage_status.ok()) {
        out->storage_status = Status::IOError("resolving a series", error_.message);
      }
      return Reject(line, Status::InvalidArgument(error_.message), out);
    }
  }
  writer_.Add(id, p.t_ms, Value::Float(p.value));
  if (writer_.full()) Flush(out);
}

void GraphiteHandler::HandleLines(std::string_view lines, Timestamp now_ms,
                                  GraphiteOutcome* out) {
  while (!lines.empty()) {
    const size_t nl = lines.find('\n');
    std::string_view line = lines.substr(0, nl);
    lines = nl == std::string_view::npos ? std::string_view() : lines.substr(nl + 1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    HandleLine(line, now_ms, out);
  }
  Flush(out);
}

}  // namespace sundial::ingest
