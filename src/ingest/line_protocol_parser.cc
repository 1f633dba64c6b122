#include "sundial/ingest/line_protocol_parser.h"

#include <charconv>
#include <cstring>
#include <limits>

#include "ingest/fast_number.h"

namespace sundial::ingest {
namespace {

constexpr size_t kMaxKeyLength = 65535;  // InfluxDB's MaxKeyLength

inline bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\0'; }
inline bool IsDigit(char c) { return c >= '0' && c <= '9'; }

size_t SkipSpaces(std::string_view s, size_t i) {
  while (i < s.size() && IsSpace(s[i])) ++i;
  return i;
}

// s[i] is not escaped: the byte before it is not a backslash (InfluxDB's rule).
inline bool Unescaped(std::string_view s, size_t i) { return i == 0 || s[i - 1] != '\\'; }

// Unescapes "\," "\=" "\ " (and "\," "\ " only when !equals_too).
void AppendUnescaped(std::string_view raw, bool equals_too, std::string* out) {
  for (size_t i = 0; i < raw.size(); ++i) {
    const char c = raw[i];
    if (c == '\\' && i + 1 < raw.size()) {
      const char e = raw[i + 1];
      if (e == ',' || e == ' ' || (equals_too && e == '=')) {
        out->push_back(e);
        ++i;
        continue;
      }
    }
    out->push_back(c);
  }
}

// Digits only (no sign), into *out; false on overflow or no digits.
bool ParseUnsignedDigits(std::string_view s, uint64_t* out) {
  if (s.empty()) return false;
  uint64_t v = 0;
  for (char c : s) {
    if (!IsDigit(c)) return false;
    const auto d = static_cast<uint64_t>(c - '0');
    if (v > (std::numeric_limits<uint64_t>::max() - d) / 10) return false;
    v = v * 10 + d;
  }
  *out = v;
  return true;
}

// An optionally negative int64 in decimal.
bool ParseSignedDigits(std::string_view s, int64_t* out) {
  const bool negative = !s.empty() && s[0] == '-';
  uint64_t v;
  if (!ParseUnsignedDigits(negative ? s.substr(1) : s, &v)) return false;
  constexpr auto kMax = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
  if (negative) {
    if (v > kMax + 1) return false;
    *out = v == kMax + 1 ? std::numeric_limits<int64_t>::min() : -static_cast<int64_t>(v);
  } else {
    if (v > kMax) return false;
    *out = static_cast<int64_t>(v);
  }
  return true;
}

// s is one or more digits, after a '-' if allow_sign.
bool AllDigits(std::string_view s, bool allow_sign) {
  if (allow_sign && !s.empty() && s[0] == '-') s.remove_prefix(1);
  if (s.empty()) return false;
  for (char c : s) {
    if (!IsDigit(c)) return false;
  }
  return true;
}

}  // namespace

bool ParsePrecision(std::string_view text, Precision* out) {
  if (text.empty() || text == "n" || text == "ns") {
    *out = Precision::kNanosecond;
  } else if (text == "u" || text == "us" || text == "\xC2\xB5") {
    *out = Precision::kMicrosecond;
  } else if (text == "ms") {
    *out = Precision::kMillisecond;
  } else if (text == "s") {
    *out = Precision::kSecond;
  } else if (text == "m") {
    *out = Precision::kMinute;
  } else if (text == "h") {
    *out = Precision::kHour;
  } else {
    return false;
  }
  return true;
}

bool PrecisionToMs(int64_t ts, Precision p, int64_t* ms) {
  int64_t ns_per_unit = 1;
  switch (p) {
    case Precision::kNanosecond: ns_per_unit = 1; break;
    case Precision::kMicrosecond: ns_per_unit = 1000; break;
    case Precision::kMillisecond: ns_per_unit = 1000000; break;
    case Precision::kSecond: ns_per_unit = 1000000000; break;
    case Precision::kMinute: ns_per_unit = 60LL * 1000000000; break;
    case Precision::kHour: ns_per_unit = 3600LL * 1000000000; break;
  }
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  if (ts > kMax / ns_per_unit || ts < -(kMax / ns_per_unit)) return false;
  if (ns_per_unit >= 1000000) {
    *ms = ts * (ns_per_unit / 1000000);
    return true;
  }
  const int64_t div = 1000000 / ns_per_unit;
  int64_t q = ts / div;
  if (ts % div != 0 && ts < 0) --q;  // floor
  *ms = q;
  return true;
}

bool LooksLikeLineProtocol(std::string_view line) {
  size_t i = SkipSpaces(line, 0);
  for (; i < line.size(); ++i) {
    if (line[i] == ' ' && Unescaped(line, i)) break;
  }
  i = SkipSpaces(line, i);
  for (; i < line.size() && line[i] != ' '; ++i) {
    if (line[i] == '=') return true;
  }
  return false;
}

bool IsBlankOrComment(std::string_view line) {
  size_t i = SkipSpaces(line, 0);
  if (i < line.size() && line[i] == '\r' && i + 1 == line.size()) return true;
  return i >= line.size() || line[i] == '#';
}

size_t FindLineEnd(std::string_view body, size_t pos) {
  const char* begin = body.data() + pos;
  const size_t left = body.size() - pos;
  const void* nl = std::memchr(begin, '\n', left);
  const size_t end = nl ? static_cast<size_t>(static_cast<const char*>(nl) - body.data())
                        : body.size();
  if (std::memchr(begin, '"', end - pos) == nullptr) return end;
  // A quote: walk the line as InfluxDB's scanLine does, so a '\n' inside a
  // string field value stays in the line.
  bool quoted = false, fields = false;
  size_t equals = 0, commas = 0;
  size_t i = pos;
  while (i < body.size()) {
    const char c = body[i];
    if (c == '\\') {
      i += 2;
      continue;
    }
    if (c == ' ') fields = true;
    if (fields) {
      if (!quoted && c == '=') {
        ++i, ++equals;
        continue;
      }
      if (!quoted && c == ',') {
        ++i, ++commas;
        continue;
      }
      if (c == '"' && equals > commas) {
        ++i;
        quoted = !quoted;
        continue;
      }
    }
    if (c == '\n' && !quoted) return i;
    ++i;
  }
  return body.size();
}

void LineProtocolParser::UnescapeKey(std::string_view raw, std::string* out) {
  AppendUnescaped(raw, /*equals_too=*/true, out);
}

bool LineProtocolParser::Parse(std::string_view line, const char** error) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  line_ = line;
  tag_spans_.clear();
  fields_.clear();
  has_timestamp_ = false;
  timestamp_ = 0;
  const size_t n = line.size();
  const size_t start = SkipSpaces(line, 0);
  if (start >= n || line[start] == ',') return *error = "missing measurement", false;
  // The measurement: up to an unescaped ',' (tags follow) or ' ' (fields).
  size_t i = start + 1;
  for (;; ++i) {
    if (i >= n) return *error = "missing fields", false;
    if ((line[i] == ',' || line[i] == ' ') && Unescaped(line, i)) break;
  }
  measurement_ = line.substr(start, i - start);
  if (line[i] == ',') {
    ++i;
    if (!ParseTags(line, &i, error)) return false;
  }
  series_ = line.substr(start, i - start);
  if (series_.size() > kMaxKeyLength) return *error = "max key length exceeded", false;
  if (!ParseFields(line, &i, error)) return false;
  return ParseTimestamp(line, i, error);
}

bool LineProtocolParser::ParseTags(std::string_view line, size_t* pos, const char** error) {
  const size_t n = line.size();
  size_t i = *pos;
  for (;;) {
    TagSpan span;
    if (i >= n || line[i] == ' ' || line[i] == ',' || line[i] == '=') {
      return *error = "missing tag key", false;
    }
    span.key_begin = static_cast<uint32_t>(i);
    for (++i;; ++i) {
      if (i >= n || ((line[i] == ' ' || line[i] == ',') && Unescaped(line, i))) {
        return *error = "missing tag value", false;
      }
      if (line[i] == '=' && Unescaped(line, i)) break;
    }
    span.key_end = static_cast<uint32_t>(i);
    ++i;
    if (i >= n || line[i] == ',' || line[i] == ' ') return *error = "missing tag value", false;
    span.value_begin = static_cast<uint32_t>(i);
    for (++i;; ++i) {
      if (i >= n) return *error = "missing fields", false;
      const char c = line[i];
      if ((c != '=' && c != ',' && c != ' ') || !Unescaped(line, i)) continue;
      if (c == '=') return *error = "invalid tag format", false;
      break;
    }
    span.value_end = static_cast<uint32_t>(i);
    tag_spans_.push_back(span);
    if (line[i] == ' ') break;
    ++i;  // ','
  }
  *pos = i;
  return true;
}

bool LineProtocolParser::ParseFields(std::string_view line, size_t* pos, const char** error) {
  const size_t n = line.size();
  size_t i = SkipSpaces(line, *pos);
  if (i >= n) return *error = "missing fields", false;
  for (;;) {
    if (line[i] == '=') return *error = "missing field key", false;
    const size_t key_begin = i;
    for (;;) {
      if (i >= n) return *error = "invalid field format", false;
      const char c = line[i];
      if (c == '\\' && i + 1 < n) {
        i += 2;
        continue;
      }
      if (c == '=') break;
      if (c == ' ' || c == ',') return *error = "invalid field format", false;
      ++i;
    }
    LineField& field = fields_.emplace_back();
    field.key = line.substr(key_begin, i - key_begin);
    ++i;  // '='
    if (i >= n || line[i] == ',' || line[i] == ' ') return *error = "missing field value", false;
    if (!ParseValue(line, &i, &field, error)) return false;
    if (i >= n || line[i] == ' ') break;
    if (line[i] != ',') return *error = "invalid field format", false;
    ++i;
    if (i >= n || line[i] == ' ') return *error = "invalid field format", false;
  }
  *pos = i;
  return true;
}

bool LineProtocolParser::ParseValue(std::string_view line, size_t* pos, LineField* field,
                                    const char** error) {
  const size_t n = line.size();
  size_t i = *pos;
  const size_t start = i;
  const char first = line[i];
  if (first == '"') {  // a string: skipped by callers, but it must be well formed
    for (++i;; ++i) {
      if (i >= n) return *error = "unbalanced quotes", false;
      if (line[i] == '\\' && i + 1 < n) {
        ++i;
        continue;
      }
      if (line[i] == '"') break;
    }
    field->type = LineFieldType::kString;
    field->text = line.substr(start + 1, i - start - 1);
    *pos = i + 1;
    return true;
  }
  while (i < n && line[i] != ',' && line[i] != ' ') ++i;
  const std::string_view text = line.substr(start, i - start);
  *pos = i;
  if (!IsDigit(first) && first != '.' && first != '-' && first != 'N' && first != 'n') {
    // A boolean.
    bool v;
    if (text == "t" || text == "T" || text == "true" || text == "True" || text == "TRUE") {
      v = true;
    } else if (text == "f" || text == "F" || text == "false" || text == "False" ||
               text == "FALSE") {
      v = false;
    } else {
      return *error = "invalid boolean", false;
    }
    field->type = LineFieldType::kBoolean;
    field->value = Value::Int(v ? 1 : 0);
    return true;
  }
  // A number, checked by InfluxDB's scanNumber grammar.
  const char last = text.back();
  const bool is_int = last == 'i', is_uint = last == 'u';
  const std::string_view digits = (is_int || is_uint) ? text.substr(0, text.size() - 1) : text;
  if (is_int || is_uint) {
    int64_t v;
    if (is_int) {
      if (!ParseSignedDigits(digits, &v)) {
        return *error = AllDigits(digits, true) ? "integer out of range" : "invalid number", false;
      }
      field->type = LineFieldType::kInteger;
      field->value = Value::Int(v);
      return true;
    }
    uint64_t u;
    if (!ParseUnsignedDigits(digits, &u)) {
      return *error = AllDigits(digits, false) ? "unsigned out of range" : "invalid number", false;
    }
    field->type = LineFieldType::kUnsigned;
    field->value = u <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max())
                       ? Value::Int(static_cast<int64_t>(u))
                       : Value::Float(static_cast<double>(u));
    return true;
  }
  // A float: [-] digits with at most one '.', an optional exponent.
  bool point = false, exponent = false;
  size_t mantissa_digits = 0;
  for (size_t k = (digits[0] == '-') ? 1 : 0; k < digits.size(); ++k) {
    const char c = digits[k];
    if (IsDigit(c)) {
      if (!exponent) ++mantissa_digits;
    } else if (c == '.' && !point && !exponent) {
      point = true;
    } else if ((c == 'e' || c == 'E') && !exponent && k > 0) {
      exponent = true;
    } else if ((c == '+' || c == '-') && (digits[k - 1] == 'e' || digits[k - 1] == 'E')) {
    } else {
      return *error = "invalid number", false;
    }
  }
  if (mantissa_digits == 0) return *error = "invalid number", false;
  field->type = LineFieldType::kFloat;
  ParsedValue fast;
  if (!exponent && FastParseValue(digits, &fast)) {
    field->value = fast.value.is_int() ? Value::Float(static_cast<double>(fast.value.int_value()))
                                       : fast.value;
    return true;
  }
  double d = 0;
  const auto r = std::from_chars(digits.data(), digits.data() + digits.size(), d);
  if (r.ec != std::errc() || r.ptr != digits.data() + digits.size()) {
    return *error = "invalid float", false;
  }
  field->value = Value::Float(d);
  return true;
}

bool LineProtocolParser::ParseTimestamp(std::string_view line, size_t pos, const char** error) {
  const size_t n = line.size();
  size_t i = SkipSpaces(line, pos);
  if (i >= n) return true;
  const size_t start = i;
  if (line[i] == '-') ++i;
  for (; i < n && line[i] != ' '; ++i) {
    if (!IsDigit(line[i])) return *error = "bad timestamp", false;
  }
  if (!ParseSignedDigits(line.substr(start, i - start), &timestamp_)) {
    return *error = "bad timestamp", false;
  }
  for (; i < n; ++i) {
    if (line[i] != ' ') return *error = "point is invalid", false;
  }
  has_timestamp_ = true;
  return true;
}

bool LineProtocolParser::DecodeSeries(std::string* measurement,
                                      std::vector<storage::TagRef>* tags, const char** error) {
  measurement->clear();
  AppendUnescaped(measurement_, /*equals_too=*/false, measurement);
  tags->clear();
  decoded_.clear();
  offsets_.clear();
  for (size_t a = 0; a < tag_spans_.size(); ++a) {
    const TagSpan& s = tag_spans_[a];
    const std::string_view key = line_.substr(s.key_begin, s.key_end - s.key_begin);
    for (size_t b = 0; b < a; ++b) {
      const TagSpan& t = tag_spans_[b];
      if (line_.substr(t.key_begin, t.key_end - t.key_begin) == key) {
        return *error = "duplicate tags", false;
      }
    }
    AppendUnescaped(key, /*equals_too=*/true, &decoded_);
    offsets_.push_back(decoded_.size());
    AppendUnescaped(line_.substr(s.value_begin, s.value_end - s.value_begin), true, &decoded_);
    offsets_.push_back(decoded_.size());
  }
  // decoded_ is complete: views into it stay valid until it changes.
  const std::string_view all = decoded_;
  size_t begin = 0;
  for (size_t a = 0; a < tag_spans_.size(); ++a) {
    const size_t mid = offsets_[2 * a], end = offsets_[2 * a + 1];
    tags->push_back(storage::TagRef{all.substr(begin, mid - begin), all.substr(mid, end - mid)});
    begin = end;
  }
  return true;
}

}  // namespace sundial::ingest
