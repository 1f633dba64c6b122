#include "sundial/ingest/telnet_put_handler.h"

#include <cmath>
#include <cstring>

#include "ingest/fast_number.h"

namespace sundial::ingest {
namespace {

constexpr std::string_view kPut = "put";

// Position of the next ' ' at or after from, or npos. Tokens are short, so
// a plain loop beats a memchr call.
inline size_t NextSpaceShort(std::string_view s, size_t from) {
  constexpr uint64_t kOnes = 0x0101010101010101ull;
  size_t i = from;
  while (i + 8 <= s.size()) {  // SWAR: 8 bytes per step
    uint64_t w;
    std::memcpy(&w, s.data() + i, 8);
    const uint64_t x = w ^ (kOnes * ' ');
    const uint64_t found = (x - kOnes) & ~x & (kOnes * 0x80);
    if (found != 0) return i + static_cast<size_t>(__builtin_ctzll(found) / 8);
    i += 8;
  }
  for (; i < s.size(); ++i) {
    if (s[i] == ' ') return i;
  }
  return std::string_view::npos;
}

// Same, for possibly long runs (the tag text).
inline size_t NextSpace(std::string_view s, size_t from) {
  if (from >= s.size()) return std::string_view::npos;
  const void* p = std::memchr(s.data() + from, ' ', s.size() - from);
  return p ? static_cast<size_t>(static_cast<const char*>(p) - s.data())
           : std::string_view::npos;
}

void SetError(PutError* error, PutErrorKind kind, std::string_view msg) {
  error->kind = kind;
  error->message.assign(msg.data(), msg.size());
}

}  // namespace

void AppendTelnetError(const PutError& error, std::string* reply) {
  switch (error.kind) {
    case PutErrorKind::kInvalidValue:
      reply->append("put: invalid value: ");
      break;
    case PutErrorKind::kIllegalArgument:
      reply->append("put: illegal argument: ");
      break;
    case PutErrorKind::kUnknownMetric:
      reply->append("put: unknown metric: ");
      break;
    case PutErrorKind::kStorage:
      reply->append("put: HBase error: ");
      break;
  }
  reply->append(error.message);
  reply->push_back('\n');
}

TelnetPutHandler::TelnetPutHandler(storage::Storage* storage, const IngestOptions* options,
                                   const PointRules* rules, IngestStats* stats)
    : rules_(rules), stats_(stats),
      writer_(storage, options, rules, stats, Protocol::kPut, TagPolicy::kAtLeastOne) {}

TelnetPutHandler::~TelnetPutHandler() { PublishStats(); }

void TelnetPutHandler::Reject(const PutError& error, std::string* reply) {
  writer_.Reject(error.kind);
  AppendTelnetError(error, reply);
}

bool TelnetPutHandler::ParseTags(std::string_view text, PutError* error) {
  tags_.clear();
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t end = NextSpace(text, pos);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view tok = text.substr(pos, end - pos);
    pos = end + 1;
    if (tok.empty()) continue;
    const size_t eq = tok.find('=');
    if (eq == 0 || eq == std::string_view::npos || eq + 1 == tok.size() ||
        tok.find('=', eq + 1) != std::string_view::npos) {
      SetError(error, PutErrorKind::kIllegalArgument, "invalid tag: ");
      error->message.append(tok.data(), tok.size());
      return false;
    }
    const storage::TagRef tag{tok.substr(0, eq), tok.substr(eq + 1)};
    bool seen = false;
    for (const storage::TagRef& t : tags_) {
      if (t.key != tag.key) continue;
      if (t.value != tag.value) {
        SetError(error, PutErrorKind::kIllegalArgument, "duplicate tag: ");
        error->message.append(tok.data(), tok.size());
        error->message += ", tags=" + FormatJavaTagMap(tags_.data(), tags_.size());
        return false;
      }
      seen = true;
    }
    if (!seen) tags_.push_back(tag);
  }
  return true;
}

void TelnetPutHandler::HandlePut(std::string_view line, std::string* reply) {
  ++lines_;
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  PutError& error = error_;
  // Row 1: "put" + metric + timestamp + value + at least one more token.
  size_t sp[4];
  size_t from = kPut.size();
  for (int k = 0; k < 4; ++k) {
    sp[k] = NextSpaceShort(line, from);
    if (sp[k] == std::string_view::npos) {
      SetError(&error, PutErrorKind::kIllegalArgument,
               "not enough arguments (need least 4, got " + std::to_string(k) + ")");
      return Reject(error, reply);
    }
    from = sp[k] + 1;
  }
  const std::string_view metric = line.substr(sp[0] + 1, sp[1] - sp[0] - 1);
  std::string_view ts_text = line.substr(sp[1] + 1, sp[2] - sp[1] - 1);
  const std::string_view value_text = line.substr(sp[2] + 1, sp[3] - sp[2] - 1);
  const std::string_view tag_text = line.substr(sp[3] + 1);
  // Row 2.
  if (metric.empty()) {
    SetError(&error, PutErrorKind::kIllegalArgument, "empty metric name");
    return Reject(error, reply);
  }
  // Rows 3 and 4. Plain digits (the usual form) have no '.' to drop.
  int64_t ts;
  if (!FastParseDigits(ts_text, &ts)) {
    if (ts_text.find('.') != std::string_view::npos) {
      scratch_.clear();
      for (char c : ts_text) {
        if (c != '.') scratch_.push_back(c);
      }
      ts_text = scratch_;
    }
    if (!FastParseDigits(ts_text, &ts) && !ParseJavaLong(ts_text, &ts, &error.message)) {
      error.kind = PutErrorKind::kInvalidValue;
      return Reject(error, reply);
    }
  }
  if (ts <= 0) {
    SetError(&error, PutErrorKind::kIllegalArgument, "invalid timestamp: " + std::to_string(ts));
    return Reject(error, reply);
  }
  // Row 5.
  if (value_text.empty()) {
    SetError(&error, PutErrorKind::kIllegalArgument, "empty value");
    return Reject(error, reply);
  }
  // Rows 6 and 7, skipped when these exact series bytes resolved before.
  SeriesId id = writer_.Lookup(metric, tag_text);
  const bool cached = id != kInvalidSeriesId;
  if (!cached && !ParseTags(tag_text, &error)) return Reject(error, reply);
  // Rows 8-10.
  ParsedValue value;
  if (!FastParseValue(value_text, &value) && !ParseValue(value_text, &value, &error.message)) {
    error.kind = PutErrorKind::kInvalidValue;
    return Reject(error, reply);
  }
  // Only a non-finite float or an oversized timestamp can fail here; the
  // check itself wants the tags (for its message), so test cheaply first.
  if ((!value.value.is_int() && !std::isfinite(value.value.float_value())) ||
      ts > 9999999999999LL) {
    if (cached && !ParseTags(tag_text, &error)) return Reject(error, reply);
    if (!rules_->CheckValueAndTimestamp(metric, ts, value, tags_.data(), tags_.size(), &error)) {
      return Reject(error, reply);
    }
  }
  // Rows 11-15 and the series, on a cache miss.
  if (!cached &&
      !writer_.Resolve(metric, tags_.data(), tags_.size(), metric, tag_text, &id, &error)) {
    return Reject(error, reply);
  }
  writer_.Add(id, PutTimestampToMs(ts), value.value);
  if (writer_.full()) (void)Flush(reply);
}

size_t TelnetPutHandler::HandlePutLines(std::string_view lines, std::string* reply) {
  size_t pos = 0;
  while (pos < lines.size() && IsPutCommand(lines.substr(pos))) {
    const void* nl = std::memchr(lines.data() + pos, '\n', lines.size() - pos);
    const size_t end =
        nl ? static_cast<size_t>(static_cast<const char*>(nl) - lines.data()) : lines.size();
    HandlePut(lines.substr(pos, end - pos), reply);
    pos = end + 1;
  }
  return pos > lines.size() ? lines.size() : pos;
}

Status TelnetPutHandler::Flush(std::string* reply) {
  PublishStats();
  size_t n = 0;
  const Status s = writer_.Flush(&n);
  if (!s.ok()) {
    const PutError error{PutErrorKind::kStorage, s.ToString()};
    for (size_t i = 0; i < n; ++i) AppendTelnetError(error, reply);
  }
  return s;
}

void TelnetPutHandler::PublishStats() {
  if (lines_) stats_->telnet_puts.fetch_add(lines_, std::memory_order_relaxed);
  lines_ = 0;
}

}  // namespace sundial::ingest
