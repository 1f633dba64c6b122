#include "sundial/ingest/put_json_parser.h"

#include <cctype>
#include <cmath>
#include <cstring>

#include "ingest/text_util.h"

namespace sundial::ingest {
namespace {

// Deepest nesting of a skipped unknown value. A point needs 3 levels;
// SkipValue recurses once per level, so this also bounds its stack.
constexpr int kMaxDepth = 64;

enum class Kind { kString, kNumber, kNonNumeric, kTrue, kFalse, kNull, kObject, kArray };

bool IsWs(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// Java's String.trim(): characters <= ' ' on both ends.
std::string_view JavaTrim(std::string_view s) {
  while (!s.empty() && static_cast<unsigned char>(s.front()) <= ' ') s.remove_prefix(1);
  while (!s.empty() && static_cast<unsigned char>(s.back()) <= ' ') s.remove_suffix(1);
  return s;
}

constexpr uint64_t kOnes = 0x0101010101010101ull;
constexpr uint64_t kHighs = 0x8080808080808080ull;

// True if any byte of w is '"', '\\', a control character or >= 0x80: the
// bytes a string scan must stop at (SWAR, 8 bytes per step).
inline bool HasSpecialByte(uint64_t w) {
  const uint64_t quote = w ^ (kOnes * '"');
  const uint64_t backslash = w ^ (kOnes * '\\');
  const uint64_t zero_quote = (quote - kOnes) & ~quote;
  const uint64_t zero_backslash = (backslash - kOnes) & ~backslash;
  const uint64_t control = w - kOnes * 0x20;  // high bit set where byte < 0x20
  return ((zero_quote | zero_backslash | control | w) & kHighs) != 0;
}

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

// A cursor over the body with the JSON grammar. Every method returns false
// after setting error_ on malformed input.
class PutJsonParser::Reader {
 public:
  Reader(std::string_view body, PutJsonParser* parser)
      : begin_(body.data()), p_(body.data()), end_(body.data() + body.size()), parser_(parser) {}

  const std::string& error() const { return error_; }
  size_t offset() const { return static_cast<size_t>(p_ - begin_); }

  bool ParseTop() {
    SkipWs();
    if (Peek() == '{') {
      parser_->points_.emplace_back();
      return ParsePoint(&parser_->points_.back());
    }
    // REQUIRES: Peek() == '['.
    ++p_;
    SkipWs();
    if (Peek() == ']') return ++p_, true;
    for (;;) {
      SkipWs();
      parser_->points_.emplace_back();
      JsonPutPoint* point = &parser_->points_.back();
      if (Peek() == '{') {
        if (!ParsePoint(point)) return false;
      } else if (ConsumeLiteral("null")) {
        point->is_null = true;
      } else {
        return Fail("Expected a data point object");
      }
      SkipWs();
      if (Peek() == ',') {
        ++p_;
        continue;
      }
      if (Peek() == ']') return ++p_, true;
      return Fail("Expected ',' or ']' in the array");
    }
  }

 private:
  char Peek() const { return p_ < end_ ? *p_ : '\0'; }
  void SkipWs() {
    while (p_ < end_ && IsWs(*p_)) ++p_;
  }
  bool Fail(std::string_view what) {
    error_.assign(what);
    if (p_ < end_) {
      error_ += " at character '";
      uint32_t cp;
      DecodeChar(std::string_view(p_, static_cast<size_t>(end_ - p_)), 0, &cp);
      AppendUtf8(cp, &error_);
      error_ += "'";
    } else {
      error_ += " at end of input";
    }
    error_ += " (offset " + std::to_string(offset()) + ")";
    return false;
  }
  bool ConsumeLiteral(std::string_view lit) {
    if (static_cast<size_t>(end_ - p_) >= lit.size() &&
        std::memcmp(p_, lit.data(), lit.size()) == 0) {
      p_ += lit.size();
      return true;
    }
    return false;
  }

  bool ParsePoint(JsonPutPoint* point);
  bool ParseTags(JsonPutPoint* point);
  bool ParseTimestamp(JsonPutPoint* point);
  // Reads a scalar (string, number, literal) into *text and *kind, or just
  // reports an object/array start without consuming it.
  bool ParseScalar(std::string_view* text, Kind* kind);
  bool ParseString(std::string_view* out);
  bool ParseNumber(std::string_view* out, Kind* kind);
  bool SkipValue(int depth);

  const char* const begin_;
  const char* p_;
  const char* const end_;
  PutJsonParser* const parser_;
  // Index of the last point whose tags were parsed (REQUIRES: the point
  // being parsed is always points_.back()).
  static constexpr size_t kNone = static_cast<size_t>(-1);
  size_t last_tags_ = kNone;
  std::string error_;
};

bool PutJsonParser::Reader::ParseString(std::string_view* out) {
  // REQUIRES: *p_ == '"'.
  const char* start = ++p_;
  while (end_ - p_ >= 8) {
    uint64_t w;
    std::memcpy(&w, p_, 8);
    if (HasSpecialByte(w)) break;
    p_ += 8;
  }
  while (p_ < end_) {
    const auto c = static_cast<unsigned char>(*p_);
    if (c == '"') {
      *out = std::string_view(start, static_cast<size_t>(p_ - start));
      ++p_;
      return true;
    }
    if (c == '\\') break;
    if (c < 0x20) return Fail("Illegal unquoted control character in a string");
    if (c >= 0x80) {
      uint32_t cp;
      const std::string_view rest(p_, static_cast<size_t>(end_ - p_));
      const size_t len = DecodeChar(rest, 0, &cp);
      if (len == 1) return Fail("Invalid UTF-8 in a string");
      p_ += len;
      continue;
    }
    ++p_;
  }
  if (p_ >= end_) return Fail("Unterminated string");
  // Escapes: decode into the arena from the start of the string.
  std::string& s = parser_->arena_.emplace_back(start, static_cast<size_t>(p_ - start));
  while (p_ < end_) {
    const auto c = static_cast<unsigned char>(*p_);
    if (c == '"') {
      *out = s;
      ++p_;
      return true;
    }
    if (c < 0x20) return Fail("Illegal unquoted control character in a string");
    if (c != '\\') {
      s.push_back(static_cast<char>(c));
      ++p_;
      continue;
    }
    if (end_ - p_ < 2) break;
    const char e = p_[1];
    p_ += 2;
    switch (e) {
      case '"': s.push_back('"'); break;
      case '\\': s.push_back('\\'); break;
      case '/': s.push_back('/'); break;
      case 'b': s.push_back('\b'); break;
      case 'f': s.push_back('\f'); break;
      case 'n': s.push_back('\n'); break;
      case 'r': s.push_back('\r'); break;
      case 't': s.push_back('\t'); break;
      case 'u': {
        if (end_ - p_ < 4) return Fail("Truncated \\u escape");
        uint32_t cp = 0;
        for (int k = 0; k < 4; ++k) {
          const int h = HexDigit(p_[k]);
          if (h < 0) return Fail("Bad hex digit in a \\u escape");
          cp = cp * 16 + static_cast<uint32_t>(h);
        }
        p_ += 4;
        // A high surrogate followed by an escaped low one is one character.
        if (cp >= 0xD800 && cp <= 0xDBFF && end_ - p_ >= 6 && p_[0] == '\\' && p_[1] == 'u') {
          uint32_t lo = 0;
          bool ok = true;
          for (int k = 0; k < 4 && ok; ++k) {
            const int h = HexDigit(p_[2 + k]);
            ok = h >= 0;
            lo = lo * 16 + static_cast<uint32_t>(h < 0 ? 0 : h);
          }
          if (ok && lo >= 0xDC00 && lo <= 0xDFFF) {
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
            p_ += 6;
          }
        }
        AppendUtf8(cp, &s);
        break;
      }
      default:
        --p_;
        return Fail("Unrecognized character escape");
    }
  }
  return Fail("Unterminated string");
}

bool PutJsonParser::Reader::ParseNumber(std::string_view* out, Kind* kind) {
  const char* start = p_;
  static constexpr std::string_view kNonNumeric[] = {"NaN",       "Infinity", "+Infinity",
                                                     "-Infinity", "+INF",     "-INF"};
  // Only a number starting with one of these can be a token: skip the
  // comparisons for plain numbers.
  const char c0 = Peek();
  const bool maybe_token = c0 == 'N' || c0 == 'I' || c0 == '+' ||
                           (c0 == '-' && end_ - p_ >= 2 && p_[1] == 'I');
  for (std::string_view tok : kNonNumeric) {
    if (!maybe_token) break;
    if (ConsumeLiteral(tok)) {
      // A longer word ("-INFINITE", "NaNa") is not the token.
      if (p_ < end_ && (std::isalnum(static_cast<unsigned char>(*p_)) != 0)) {
        p_ = start;
        continue;
      }
      *out = tok;
      *kind = Kind::kNonNumeric;
      return true;
    }
  }
  if (Peek() == '-') ++p_;
  if (Peek() == '0') {
    ++p_;
    if (IsDigit(Peek())) return Fail("Leading zeroes not allowed");
  } else if (IsDigit(Peek())) {
    while (IsDigit(Peek())) ++p_;
  } else {
    return Fail("Unexpected character");
  }
  if (Peek() == '.') {
    ++p_;
    if (!IsDigit(Peek())) return Fail("Decimal point must be followed by a digit");
    while (IsDigit(Peek())) ++p_;
  }
  if (Peek() == 'e' || Peek() == 'E') {
    ++p_;
    if (Peek() == '+' || Peek() == '-') ++p_;
    if (!IsDigit(Peek())) return Fail("Exponent indicator not followed by a digit");
    while (IsDigit(Peek())) ++p_;
  }
  *out = std::string_view(start, static_cast<size_t>(p_ - start));
  *kind = Kind::kNumber;
  return true;
}

bool PutJsonParser::Reader::ParseScalar(std::string_view* text, Kind* kind) {
  SkipWs();
  switch (Peek()) {
    case '"':
      *kind = Kind::kString;
      return ParseString(text);
    case '{':
      *kind = Kind::kObject;
      return true;
    case '[':
      *kind = Kind::kArray;
      return true;
    case 't':
      if (!ConsumeLiteral("true")) return Fail("Unrecognized token");
      *kind = Kind::kTrue;
      *text = "true";
      return true;
    case 'f':
      if (!ConsumeLiteral("false")) return Fail("Unrecognized token");
      *kind = Kind::kFalse;
      *text = "false";
      return true;
    case 'n':
      if (!ConsumeLiteral("null")) return Fail("Unrecognized token");
      *kind = Kind::kNull;
      *text = std::string_view();
      return true;
    default:
      return ParseNumber(text, kind);
  }
}

bool PutJsonParser::Reader::SkipValue(int depth) {
  if (depth > kMaxDepth) return Fail("Nesting too deep");
  std::string_view text;
  Kind kind;
  if (!ParseScalar(&text, &kind)) return false;
  if (kind != Kind::kObject && kind != Kind::kArray) return true;
  const char close = kind == Kind::kObject ? '}' : ']';
  ++p_;
  SkipWs();
  if (Peek() == close) return ++p_, true;
  for (;;) {
    SkipWs();
    if (kind == Kind::kObject) {
      if (Peek() != '"') return Fail("Expected a field name");
      if (!ParseString(&text)) return false;
      SkipWs();
      if (Peek() != ':') return Fail("Expected ':'");
      ++p_;
    }
    if (!SkipValue(depth + 1)) return false;
    SkipWs();
    if (Peek() == ',') {
      ++p_;
      continue;
    }
    if (Peek() == close) return ++p_, true;
    return Fail(kind == Kind::kObject ? "Expected ',' or '}'" : "Expected ',' or ']'");
  }
}

bool PutJsonParser::Reader::ParseTimestamp(JsonPutPoint* point) {
  std::string_view text;
  Kind kind;
  if (!ParseScalar(&text, &kind)) return false;
  if (kind == Kind::kNull) {
    point->timestamp = 0;
    return true;
  }
  if (kind == Kind::kString) {
    text = JavaTrim(text);
    if (text.empty()) {
      point->timestamp = 0;
      return true;
    }
  } else if (kind != Kind::kNumber) {
    return Fail("Cannot deserialize a long timestamp from this token");
  }
  // Integers must fit in a long; decimals are truncated toward zero.
  // Fast path: up to 18 plain digits cannot overflow.
  if (!text.empty() && text.size() <= 18) {
    int64_t v = 0;
    size_t i = 0;
    while (i < text.size() && IsDigit(text[i])) v = v * 10 + (text[i++] - '0');
    if (i == text.size()) {
      point->timestamp = v;
      return true;
    }
  }
  bool integral = true;
  for (char c : text) integral &= IsDigit(c) || c == '-' || c == '+';
  if (integral) {
    const bool neg = !text.empty() && text[0] == '-';
    size_t i = (!text.empty() && (text[0] == '-' || text[0] == '+')) ? 1 : 0;
    if (i == text.size()) return Fail("Timestamp is not a number");
    uint64_t v = 0;
    for (; i < text.size(); ++i) {
      if (!IsDigit(text[i])) return Fail("Timestamp is not a number");
      const uint64_t d = static_cast<uint64_t>(text[i] - '0');
      if (v > (UINT64_MAX - d) / 10) return Fail("Numeric value out of range of long");
      v = v * 10 + d;
    }
    if (v > static_cast<uint64_t>(INT64_MAX) + (neg ? 1 : 0)) {
      return Fail("Numeric value out of range of long");
    }
    point->timestamp = neg ? static_cast<int64_t>(0 - v) : static_cast<int64_t>(v);
    return true;
  }
  char* end = nullptr;
  const std::string copy(text);
  const double d = std::strtod(copy.c_str(), &end);
  if (end != copy.c_str() + copy.size() || !std::isfinite(d) || copy.find_first_of("xXnN") !=
      std::string::npos) {
    return Fail("Timestamp is not a number");
  }
  if (d >= 9.2233720368547758e18 || d < -9.2233720368547758e18) {
    return Fail("Numeric value out of range of long");
  }
  point->timestamp = static_cast<int64_t>(d);
  return true;
}

bool PutJsonParser::Reader::ParseTags(JsonPutPoint* point) {
  std::string_view text;
  Kind kind;
  SkipWs();
  const char* start = p_;
  if (!ParseScalar(&text, &kind)) return false;
  if (kind == Kind::kNull) {
    point->has_tags = false;
    return true;
  }
  if (kind != Kind::kObject) return Fail("Tags must be an object");
  // Consecutive points often carry the very same tags object (one host,
  // many metrics): the same bytes parse to the same tags, so reuse them.
  if (last_tags_ != kNone) {
    const JsonPutPoint& last = parser_->points_[last_tags_];
    const std::string_view prev = last.tags_raw;
    if (static_cast<size_t>(end_ - p_) >= prev.size() &&
        std::memcmp(p_, prev.data(), prev.size()) == 0) {
      p_ += prev.size();
      point->has_tags = true;
      point->tags_raw = std::string_view(start, prev.size());
      point->tags_begin = last.tags_begin;
      point->tags_count = last.tags_count;
      last_tags_ = parser_->points_.size() - 1;
      return true;
    }
  }
  auto& tags = parser_->tags_;
  const size_t begin = tags.size();
  ++p_;
  SkipWs();
  if (Peek() != '}') {
    for (;;) {
      SkipWs();
      if (Peek() != '"') return Fail("Expected a tag name");
      std::string_view key;
      if (!ParseString(&key)) return false;
      SkipWs();
      if (Peek() != ':') return Fail("Expected ':'");
      ++p_;
      std::string_view value;
      if (!ParseScalar(&value, &kind)) return false;
      if (kind == Kind::kObject || kind == Kind::kArray) {
        return Fail("A tag value must be a string");
      }
      tags.push_back(storage::TagRef{key, value});  // repeats: see DistinctTags
      SkipWs();
      if (Peek() == ',') {
        ++p_;
        continue;
      }
      if (Peek() == '}') break;
      return Fail("Expected ',' or '}'");
    }
  }
  ++p_;
  point->has_tags = true;
  point->tags_raw = std::string_view(start, static_cast<size_t>(p_ - start));
  point->tags_begin = static_cast<uint32_t>(begin);
  point->tags_count = static_cast<uint32_t>(tags.size() - begin);
  last_tags_ = parser_->points_.size() - 1;
  return true;
}

bool PutJsonParser::Reader::ParsePoint(JsonPutPoint* point) {
  // REQUIRES: *p_ == '{'.
  ++p_;
  SkipWs();
  if (Peek() == '}') return ++p_, true;
  for (;;) {
    SkipWs();
    if (Peek() != '"') return Fail("Expected a field name");
    std::string_view name;
    if (!ParseString(&name)) return false;
    SkipWs();
    if (Peek() != ':') return Fail("Expected ':'");
    ++p_;
    std::string_view text;
    Kind kind;
    if (name == "metric" || name == "value") {
      if (!ParseScalar(&text, &kind)) return false;
      if (kind == Kind::kObject || kind == Kind::kArray) {
        return Fail("Cannot deserialize a string from an object or array");
      }
      const bool present = kind != Kind::kNull;
      if (name == "metric") {
        point->has_metric = present, point->metric = text;
      } else {
        point->has_value = present, point->value = text;
      }
    } else if (name == "timestamp") {
      if (!ParseTimestamp(point)) return false;
    } else if (name == "tags") {
      if (!ParseTags(point)) return false;
    } else if (!SkipValue(1)) {
      return false;
    }
    SkipWs();
    if (Peek() == ',') {
      ++p_;
      continue;
    }
    if (Peek() == '}') return ++p_, true;
    return Fail("Expected ',' or '}'");
  }
}

bool PutJsonParser::Parse(std::string_view body, std::string* message, std::string* details) {
  points_.clear();
  tags_.clear();
  arena_.clear();
  details->clear();
  last_fast_ = false;
  const std::string_view content = JavaTrim(body);
  if (content.empty()) {
    *message = "Missing request content";
    return false;
  }
  if (content[0] != '{' && content[0] != '[') {
    *message = "The JSON must start as an object or an array";
    return false;
  }
  if (fast_ && content[0] == '[') {
    if (ParseCommonShape(content)) return last_fast_ = true;
    points_.clear();
    tags_.clear();
  }
  Reader reader(content, this);
  if (!reader.ParseTop()) {
    *message = "Unable to parse the given JSON";
    *details = reader.error();
    points_.clear();
    tags_.clear();
    return false;
  }
  return true;
}

void DistinctTags(const JsonPutPoint& point, const std::vector<storage::TagRef>& tags,
                  std::vector<storage::TagRef>* out) {
  out->clear();
  for (uint32_t i = 0; i < point.tags_count; ++i) {
    const storage::TagRef& t = tags[point.tags_begin + i];
    bool replaced = false;  // HashMap.put: a repeated key keeps its place
    for (storage::TagRef& o : *out) {
      if (o.key == t.key) {
        o.value = t.value;
        replaced = true;
        break;
      }
    }
    if (!replaced) out->push_back(t);
  }
}

void AppendJsonPutPoint(const JsonPutPoint& point, const std::vector<storage::TagRef>& all_tags,
                        std::string* out) {
  if (point.is_null) {
    out->append("null");
    return;
  }
  out->push_back('{');
  if (point.has_metric) {
    out->append("\"metric\":");
    AppendJsonString(point.metric, out);
    out->push_back(',');
  }
  out->append("\"timestamp\":");
  out->append(std::to_string(point.timestamp));
  if (point.has_value) {
    out->append(",\"value\":");
    AppendJsonString(point.value, out);
  }
  if (point.has_tags) {
    std::vector<storage::TagRef> tags;
    DistinctTags(point, all_tags, &tags);
    out->append(",\"tags\":{");
    for (size_t i = 0; i < tags.size(); ++i) {
      const storage::TagRef& t = tags[i];
      if (i > 0) out->push_back(',');
      AppendJsonString(t.key, out);
      out->push_back(':');
      if (t.value.data() == nullptr) {
        out->append("null");
      } else {
        AppendJsonString(t.value, out);
      }
    }
    out->push_back('}');
  }
  out->push_back('}');
}

}  // namespace sundial::ingest
