#include "sundial/ingest/line_protocol_handler.h"

namespace sundial::ingest {

LineProtocolHandler::LineProtocolHandler(storage::Storage* storage, const IngestOptions* options,
                                         const PointRules* rules, IngestStats* stats)
    : options_(options), stats_(stats),
      writer_(storage, options, rules, stats, Protocol::kInflux, TagPolicy::kAny,
              NamePolicy::kPlainText) {}

void LineProtocolHandler::SetError(std::string_view line, std::string_view reason,
                                   std::string* error) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  error->assign("unable to parse '");
  error->append(line.data(), line.size());
  error->append("': ");
  error->append(reason.data(), reason.size());
}

SeriesId LineProtocolHandler::ResolveField(const LineField& f, std::string* reason) {
  if (!decoded_) {
    const char* why = nullptr;
    if (!parser_.DecodeSeries(&measurement_, &tags_, &why)) {
      writer_.Reject(PutErrorKind::kIllegalArgument);
      *reason = why;
      return kInvalidSeriesId;
    }
    decoded_ = true;
  }
  metric_ = measurement_;
  metric_ += options_->influx_separator;
  LineProtocolParser::UnescapeKey(f.key, &metric_);
  SeriesId id = kInvalidSeriesId;
  if (!writer_.Resolve(metric_, tags_.data(), tags_.size(), f.key, parser_.series(), &id,
                       &put_error_)) {
    writer_.Reject(put_error_.kind);
    *reason = put_error_.message;
    return kInvalidSeriesId;
  }
  return id;
}

bool LineProtocolHandler::AddLine(std::string_view line, Precision precision, int64_t now_ms,
                                  std::string* error) {
  const char* why = nullptr;
  if (!parser_.Parse(line, &why)) {
    writer_.RejectOther(1);
    SetError(line, why, error);
    return false;
  }
  int64_t t = now_ms;
  if (parser_.has_timestamp() &&
      (!PrecisionToMs(parser_.timestamp(), precision, &t) || t < 0)) {
    writer_.RejectOther(1);
    SetError(line, "time outside range", error);
    return false;
  }
  decoded_ = false;
  bool ok = true;
  const std::string_view series = parser_.series();
  for (const LineField& f : parser_.fields()) {
    if (f.type == LineFieldType::kString) {
      ++string_fields_;
      continue;
    }
    SeriesId id = writer_.Lookup(f.key, series);
    if (id == kInvalidSeriesId) {
      id = ResolveField(f, &reason_);
      if (id == kInvalidSeriesId) {
        if (ok) SetError(line, reason_, error);
        ok = false;
        continue;
      }
    }
    writer_.Add(id, t, f.value);
  }
  return ok;
}

bool LineProtocolHandler::HandleLine(std::string_view line, Precision precision, int64_t now_ms,
                                     std::string* error) {
  bool ok = AddLine(line, precision, now_ms, error);
  PublishStringFields();
  if (writer_.full()) {
    const Status s = writer_.Flush(nullptr);
    if (!s.ok() && ok) {
      SetError(line, s.ToString(), error);
      ok = false;
    }
  }
  return ok;
}

void LineProtocolHandler::PublishStringFields() {
  if (string_fields_ == 0) return;
  stats_->influx_string_fields.fetch_add(string_fields_, std::memory_order_relaxed);
  string_fields_ = 0;
}

void LineProtocolHandler::HandleBody(std::string_view body, Precision precision, int64_t now_ms,
                                     LineProtocolOutcome* out) {
  *out = LineProtocolOutcome();
  size_t pos = 0;
  while (pos < body.size()) {
    const size_t end = FindLineEnd(body, pos);
    const std::string_view line = body.substr(pos, end - pos);
    pos = end + 1;
    if (IsBlankOrComment(line)) continue;
    ++out->lines;
    if (writer_.full()) {
      size_t n = 0;
      out->storage_status = writer_.Flush(&n);
      if (!out->storage_status.ok()) break;
      out->points += n;
    }
    std::string* error = out->first_error.empty() ? &out->first_error : &error_;
    if (!AddLine(line, precision, now_ms, error)) ++out->bad_lines;
  }
  out->string_fields = string_fields_;
  PublishStringFields();
  if (!out->storage_status.ok()) {
    (void)writer_.Flush(nullptr);  // drop what is left: nothing of it is acknowledged
    return;
  }
  size_t n = 0;
  out->storage_status = writer_.Flush(&n);
  if (out->storage_status.ok()) out->points += n;
}

}  // namespace sundial::ingest
