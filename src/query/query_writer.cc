#include "query_writer.h"

#include <charconv>
#include <cmath>
#include <cstring>
#include <utility>

#include "sundial/query/json_format.h"

namespace sundial::query {
namespace {

void AppendBool(bool b, std::string* out) { out->append(b ? "true" : "false"); }

// ,"series":..,"rawDatapoints":..,"emittedDPs":..,"timeTotalMs":..
void AppendStatsFields(const ResultStats& s, std::string* out) {
  out->append(",\"series\":");
  AppendInt(static_cast<int64_t>(s.series), out);
  out->append(",\"rawDatapoints\":");
  AppendInt(static_cast<int64_t>(s.raw_points), out);
  out->append(",\"emittedDPs\":");
  AppendInt(static_cast<int64_t>(s.emitted), out);
  out->append(",\"timeTotalMs\":");
  AppendJavaDouble(s.time_ms, out);
}

}  // namespace

void AppendSubQueryJson(const SubQuery& q, std::string* out) {
  out->append("{\"aggregator\":");
  AppendJsonString(q.aggregator->name, out);
  out->append(",\"metric\":");
  AppendJsonString(q.metric, out);
  out->append(",\"tsuids\":");
  if (q.tsuids.empty()) {
    out->append("null");
  } else {
    out->push_back('[');
    for (size_t i = 0; i < q.tsuids.size(); ++i) {
      if (i) out->push_back(',');
      AppendJsonString(q.tsuids[i], out);
    }
    out->push_back(']');
  }
  out->append(",\"downsample\":");
  if (q.downsample.enabled) AppendJsonString(q.downsample.text, out); else out->append("null");
  out->append(",\"rate\":");
  AppendBool(q.rate, out);
  out->append(",\"filters\":[");
  for (size_t i = 0; i < q.filters.size(); ++i) {
    const TagFilter& f = q.filters[i];
    if (i) out->push_back(',');
    out->append("{\"tagk\":");
    AppendJsonString(f.tagk(), out);
    out->append(",\"filter\":");
    AppendJsonString(f.filter(), out);
    out->append(",\"group_by\":");
    AppendBool(f.group_by(), out);
    out->append(",\"type\":");
    AppendJsonString(f.type_name(), out);
    out->push_back('}');
  }
  out->append("],\"index\":");
  AppendInt(q.index, out);
  out->append(",\"tags\":{");
  bool first = true;
  for (const TagFilter& f : q.filters) {
    if (!f.group_by()) continue;
    if (!first) out->push_back(',');
    first = false;
    AppendJsonString(f.tagk(), out);
    out->push_back(':');
    AppendJsonString(std::string(f.type_name()) + "(" + f.filter() + ")", out);
  }
  out->append("},\"rateOptions\":");
  if (q.rate || q.has_rate_options) {
    out->append("{\"counter\":");
    AppendBool(q.rate_options.counter, out);
    out->append(",\"counterMax\":");
    AppendInt(q.rate_options.counter_max, out);
    out->append(",\"resetValue\":");
    AppendInt(q.rate_options.reset_value, out);
    out->append(",\"dropResets\":");
    AppendBool(q.rate_options.drop_resets, out);
    out->push_back('}');
  } else {
    out->append("null");
  }
  out->append(",\"explicitTags\":");
  AppendBool(q.explicit_tags, out);
  out->append(",\"usePercentiles\":false,\"percentiles\":null,\"showHistogramBuckets\":false"
              ",\"preAggregate\":false,\"rollupUsage\":null,\"useMultiGets\":true}");
}

ResultWriter::ResultWriter(const QuerySpec& spec, ChunkSink* sink) : spec_(spec), sink_(sink) {
  buf_.reserve(4096);  // grows to a chunk only for large results
  buf_.push_back('[');
}

bool ResultWriter::Flush(bool last) {
  Unstage();
  if (!sink_ok_) return false;
  if (buf_.empty()) return true;
  std::string chunk;
  if (!last) chunk.reserve(kChunkBytes + 4096);  // becomes buf_ for what follows
  chunk.swap(buf_);
  sink_ok_ = sink_->Write(std::move(chunk));
  return sink_ok_;
}

void ResultWriter::BeginResult(const SubQuery& q, const GroupHeader& h) {
  Unstage();
  if (!first_result_) buf_.push_back(',');
  first_result_ = false;
  first_point_ = true;
  emitted_ = 0;
  null_fill_ = q.downsample.enabled && q.downsample.fill == FillPolicy::kNull;
  buf_.append("{\"metric\":");
  AppendJsonString(*h.metric, &buf_);
  buf_.append(",\"tags\":{");
  bool first = true;
  for (const auto& kv : h.tags) {
    if (!first) buf_.push_back(',');
    first = false;
    AppendJsonString(kv.first, &buf_);
    buf_.push_back(':');
    AppendJsonString(kv.second, &buf_);
  }
  buf_.append("},\"aggregateTags\":[");
  for (size_t i = 0; i < h.aggregate_tags.size(); ++i) {
    if (i) buf_.push_back(',');
    AppendJsonString(h.aggregate_tags[i], &buf_);
  }
  buf_.push_back(']');
  if (spec_.show_query) {
    buf_.append(",\"query\":");
    AppendSubQueryJson(q, &buf_);
  }
  if (spec_.show_tsuids) {
    buf_.append(",\"tsuids\":[");
    for (size_t i = 0; i < h.tsuids.size(); ++i) {
      if (i) buf_.push_back(',');
      AppendJsonString(h.tsuids[i], &buf_);
    }
    buf_.push_back(']');
  }
  if (!h.annotations.empty()) {
    buf_.append(",\"annotations\":[");
    buf_.append(h.annotations);
    buf_.push_back(']');
  }
  if (h.global_annotations != nullptr && !h.global_annotations->empty()) {
    buf_.append(",\"globalAnnotations\":[");
    buf_.append(*h.global_annotations);
    buf_.push_back(']');
  }
  buf_.append(spec_.arrays ? ",\"dps\":[" : ",\"dps\":{");
}

char* ResultWriter::BeginPoint(Timestamp t) {
  if (staged_ + kMaxStagedPoint > sizeof(stage_)) Unstage();
  char* p = stage_ + staged_;
  if (!first_point_) *p++ = ',';
  first_point_ = false;
  ++emitted_;
  const int64_t ts = spec_.ms_resolution ? t : t / 1000;
  *p++ = spec_.arrays ? '[' : '"';
  p = WriteTimestamp(ts, p);
  if (spec_.arrays) {
    *p++ = ',';
  } else {
    *p++ = '"';
    *p++ = ':';
  }
  return p;
}

char* ResultWriter::WriteTimestamp(int64_t ts, char* out) {
  // Both non-negative: the difference cannot overflow.
  if (ts_len_ > 0 && ts_last_ >= 0 && ts >= ts_last_ && ts - ts_last_ < kMaxTsStep) {
    // The previous text first (a wide copy of bytes written a point ago),
    // then the difference added to it digit by digit from the last, in
    // both copies: reading the digits back wide right after writing them
    // one by one would stall the CPU.
    std::memcpy(out, ts_text_, sizeof(ts_text_));
    uint32_t d = static_cast<uint32_t>(ts - ts_last_), carry = 0;
    for (int i = ts_len_ - 1; i >= 0 && (d != 0 || carry != 0); --i, d /= 10) {
      uint32_t digit = static_cast<uint32_t>(ts_text_[i] - '0') + d % 10 + carry;
      carry = digit >= 10;
      if (carry != 0) digit -= 10;
      ts_text_[i] = out[i] = static_cast<char>('0' + digit);
    }
    if (d == 0 && carry == 0) {
      ts_last_ = ts;
      return out + ts_len_;
    }
    // It grew a digit: written whole below.
  }
  ts_len_ = static_cast<int>(WriteInt(ts, ts_text_) - ts_text_);
  ts_last_ = ts;
  std::memcpy(out, ts_text_, sizeof(ts_text_));  // a fixed size: no call
  return out + ts_len_;
}

void ResultWriter::EndPoint(char* p) {
  if (spec_.arrays) *p++ = ']';
  staged_ = static_cast<size_t>(p - stage_);
  if (buf_.size() + staged_ >= kChunkBytes) Flush(/*last=*/false);
}

void ResultWriter::AddPointText(Timestamp t, std::string_view value_text) {
  char* p = BeginPoint(t);
  if (value_text.size() <= kShortDoubleMax) {
    std::memcpy(p, value_text.data(), value_text.size());
    EndPoint(p + value_text.size());
    return;
  }
  staged_ = static_cast<size_t>(p - stage_);
  Unstage();
  buf_.append(value_text);
  EndPoint(stage_);
}

void ResultWriter::AddPoint(Timestamp t, const Value& v) {
  // The point is laid out in stage_; only doubles outside
  // WriteShortJavaDouble's range are appended to buf_ directly.
  char* p = BeginPoint(t);
  if (v.is_int()) {
    p = WriteInt(v.int_value(), p);
  } else if (null_fill_ && std::isnan(v.float_value())) {
    std::memcpy(p, "null", 4);
    p += 4;
  } else if (char* q = WriteShortJavaDouble(v.float_value(), p)) {
    p = q;
  } else {
    staged_ = static_cast<size_t>(p - stage_);
    Unstage();
    AppendJavaDouble(v.float_value(), &buf_);
    p = stage_;
  }
  EndPoint(p);
}

void ResultWriter::Unstage() {
  buf_.append(stage_, staged_);
  staged_ = 0;
}

bool ResultWriter::EndResult(const ResultStats& stats) {
  Unstage();
  buf_.append(spec_.arrays ? "]" : "}");
  if (spec_.show_stats) {
    buf_.append(",\"stats\":{\"queryIndex\":");
    AppendInt(stats.query_index, &buf_);
    AppendStatsFields(stats, &buf_);
    buf_.push_back('}');
  }
  buf_.push_back('}');
  if (buf_.size() >= kChunkBytes) return Flush(/*last=*/false);
  return sink_ok_;
}

bool ResultWriter::Finish(const ResultStats& summary) {
  Unstage();
  if (spec_.show_summary) {
    if (!first_result_) buf_.push_back(',');
    buf_.append("{\"statsSummary\":{\"queries\":");
    AppendInt(static_cast<int64_t>(spec_.queries.size()), &buf_);
    AppendStatsFields(summary, &buf_);
    buf_.append("}}");
  }
  buf_.push_back(']');
  return Flush(/*last=*/true);
}

bool RecordedResult::Replay(ResultWriter* w) const {
  if (q_ == nullptr) return true;
  w->BeginResult(*q_, header_);
  for (const Recorded& p : points_) {
    if (p.text_len != 0) {
      w->AddPointText(p.t, std::string_view(texts_).substr(p.text_at, p.text_len));
    } else {
      w->AddPoint(p.t, p.v);
    }
  }
  return w->EndResult(stats_);
}

}  // namespace sundial::query
