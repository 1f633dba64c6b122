#include "sundial/ingest/graphite_handler.h"

namespace sundial::ingest {

GraphiteHandler::GraphiteHandler(storage::Storage* storage, const IngestOptions* options)
    : writer_(storage, options) {}

void GraphiteHandler::Reject(std::string_view line, const Status& why, GraphiteOutcome* out) {
  ++out->rejected;
  if (out->first_error.empty()) {
    out->first_error = why.ToString() + " in line \"" + std::string(line.substr(0, 200)) + "\"";
  }
}

void GraphiteHandler::Flush(GraphiteOutcome* out) {
  const size_t pending = writer_.pending();
  const Status s = writer_.Flush();
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
  if (!s.ok()) return Reject(line, s, out);
  SeriesId id = writer_.Lookup(p.path, p.tag_text);
  if (id == kInvalidSeriesId) {
    s = ParseGraphiteTags(p.tag_text, &tags_);
    if (!s.ok()) return Reject(line, s, out);
    ++out->series_misses;
    s = writer_.Resolve(p.path, tags_.data(), tags_.size(), p.path, p.tag_text, &id);
    if (s.IsNotFound() || s.IsInvalidArgument()) return Reject(line, s, out);
    if (!s.ok()) {  // storage could not create the series
      ++out->rejected;
      if (out->storage_status.ok()) out->storage_status = s;
      return;
    }
  }
  writer_.Add(id, p.t_ms, p.value);
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
