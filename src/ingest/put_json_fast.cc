// The single-pass scanner for the common shape of an /api/put body (see
// put_json_parser.h). It accepts a subset of what the general parser
// accepts and must produce exactly the points and tags the general parser
// would; anything else makes it return false, and the general parser reads
// the body instead:
//   body   = '[' ws point (ws ',' ws point)* ws ']' <anything>
//   point  = '{' ws field (ws ',' ws field)* ws '}'   each field at most once
//   field  = "metric" ws ':' ws plain
//          | "timestamp" ws ':' ws digits       (1-18 digits, no leading 0)
//          | "value" ws ':' ws number           (JSON number grammar)
//          | "tags" ws ':' ws tags
//   tags   = '{' ws plain ws ':' ws plain (ws ',' ws plain ws ':' ws plain)* ws '}'
//   plain  = '"' bytes 0x20..0x7f except '"' and '\' '"'
// Tags objects repeated byte for byte reuse the previous one's tags, as the
// general parser does (so tags_begin/tags_count come out identical).
#include <cstring>

#include "sundial/ingest/put_json_parser.h"

#include "ingest/fast_number.h"

namespace sundial::ingest {
namespace {

constexpr uint64_t kOnes = 0x0101010101010101ull;
constexpr uint64_t kHighs = 0x8080808080808080ull;

inline bool IsWs(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
inline bool IsDigit(char c) { return c >= '0' && c <= '9'; }

template <typename T>
inline T Load(const char* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

// Scans a JSON string's bytes for the cursor. All methods leave p at the
// first byte they did not take.
class Scanner {
 public:
  Scanner(const char* p, const char* end) : p_(p), end_(end) {}

  void SkipWs() {
    while (p_ < end_ && IsWs(*p_)) ++p_;
  }
  // Takes c if it is next.
  bool Take(char c) {
    if (p_ < end_ && *p_ == c) {
      ++p_;
      return true;
    }
    return false;
  }
  char Peek() const { return p_ < end_ ? *p_ : '\0'; }
  // Takes lit (a field name with its closing quote) if it is next.
  // Two overlapping word compares cover 4..16 bytes (no call, no loop).
  template <size_t N>
  bool TakeLiteral(const char (&lit)[N]) {
    constexpr size_t n = N - 1;
    static_assert(n >= 4 && n <= 16, "a field name with its quote");
    if (left() < n) return false;
    bool equal;
    if constexpr (n <= 8) {
      equal = Load<uint32_t>(p_) == Load<uint32_t>(lit) &&
              Load<uint32_t>(p_ + n - 4) == Load<uint32_t>(lit + n - 4);
    } else {
      equal = Load<uint64_t>(p_) == Load<uint64_t>(lit) &&
              Load<uint64_t>(p_ + n - 8) == Load<uint64_t>(lit + n - 8);
    }
    if (equal) p_ += n;
    return equal;
  }
  // A plain string (opening quote next): its bytes, without the quotes.
  bool Plain(std::string_view* out) {
    if (!Take('"')) return false;
    const char* start = p_;
    while (end_ - p_ >= 8) {
      uint64_t w;
      std::memcpy(&w, p_, 8);
      // High bit set in each byte that is '"', '\\', < 0x20 or >= 0x80;
      // the lowest such byte is exact (borrows only run upwards).
      const uint64_t quote = w ^ (kOnes * '"');
      const uint64_t backslash = w ^ (kOnes * '\\');
      const uint64_t special = (((quote - kOnes) & ~quote) | ((backslash - kOnes) & ~backslash) |
                                ((w - kOnes * 0x20) & ~w) | w) &
                               kHighs;
      if (special != 0) {
        p_ += __builtin_ctzll(special) / 8;
        return EndPlain(start, out);
      }
      p_ += 8;
    }
    while (p_ < end_) {
      const auto c = static_cast<unsigned char>(*p_);
      if (c == '"' || c == '\\' || c < 0x20 || c >= 0x80) return EndPlain(start, out);
      ++p_;
    }
    return false;
  }
  // A JSON number's text (an optional '-', an integer part without leading
  // zeros, an optional fraction and exponent).
  bool Number(std::string_view* out) {
    const char* start = p_;
    Take('-');
    if (Take('0')) {
      if (IsDigit(Peek())) return false;
    } else if (!Digits()) {
      return false;
    }
    if (Take('.') && !Digits()) return false;
    if (Take('e') || Take('E')) {
      if (!Take('+')) Take('-');
      if (!Digits()) return false;
    }
    *out = std::string_view(start, static_cast<size_t>(p_ - start));
    return true;
  }
  // A timestamp of 1-18 plain digits (no sign, fraction or exponent).
  bool TimestampDigits(int64_t* out) {
    const char* start = p_;
    uint64_t v = 0;  // wraps harmlessly past 19 digits, which are refused
    if (left() >= 8 && EightDigits(p_, &v)) p_ += 8;
    while (p_ < end_ && IsDigit(*p_)) v = v * 10 + static_cast<uint64_t>(*p_++ - '0');
    const size_t n = static_cast<size_t>(p_ - start);
    if (n == 0 || n > 18 || (n > 1 && *start == '0')) return false;
    const char c = Peek();
    if (c == '.' || c == 'e' || c == 'E') return false;
    *out = static_cast<int64_t>(v);
    return true;
  }
  const char* pos() const { return p_; }
  size_t left() const { return static_cast<size_t>(end_ - p_); }
  void Skip(size_t n) { p_ += n; }

 private:
  bool Digits() {
    const char* start = p_;
    while (p_ < end_ && IsDigit(*p_)) ++p_;
    return p_ != start;
  }
  bool EndPlain(const char* start, std::string_view* out) {
    if (*p_ != '"') return false;  // an escape or a byte the general parser checks
    *out = std::string_view(start, static_cast<size_t>(p_ - start));
    ++p_;
    return true;
  }

  const char* p_;
  const char* const end_;
};

// Field bits.
constexpr unsigned kMetric = 1, kTimestamp = 2, kValue = 4, kTags = 8;

// The field whose name (after the opening quote) is next, taking the name
// and its closing quote; 0 for any other name.
unsigned TakeFieldName(Scanner* s) {
  switch (s->Peek()) {
    case 'm':
      return s->TakeLiteral("metric\"") ? kMetric : 0u;
    case 't':
      if (s->TakeLiteral("timestamp\"")) return kTimestamp;
      return s->TakeLiteral("tags\"") ? kTags : 0u;
    case 'v':
      return s->TakeLiteral("value\"") ? kValue : 0u;
    default:
      return 0;
  }
}

}  // namespace

bool PutJsonParser::ParseCommonShape(std::string_view content) {
  Scanner s(content.data(), content.data() + content.size());
  if (!s.Take('[')) return false;
  s.SkipWs();
  if (s.Peek() == ']') return false;  // empty: left to the general parser
  constexpr size_t kNone = static_cast<size_t>(-1);
  size_t last_tags = kNone;  // the last point with a tags object
  for (;;) {
    s.SkipWs();
    if (!s.Take('{')) return false;
    JsonPutPoint& point = points_.emplace_back();
    unsigned seen = 0;
    for (;;) {
      s.SkipWs();
      if (!s.Take('"')) return false;
      const unsigned field = TakeFieldName(&s);
      if (field == 0 || (seen & field) != 0) return false;
      seen |= field;
      s.SkipWs();
      if (!s.Take(':')) return false;
      s.SkipWs();
      switch (field) {
        case kMetric:
          if (!s.Plain(&point.metric)) return false;
          point.has_metric = true;
          break;
        case kTimestamp:
          if (!s.TimestampDigits(&point.timestamp)) return false;
          break;
        case kValue:
          if (!s.Number(&point.value)) return false;
          point.has_value = true;
          break;
        default: {  // kTags
          if (s.Peek() != '{') return false;
          const char* start = s.pos();
          point.has_tags = true;
          if (last_tags != kNone) {
            const JsonPutPoint& prev = points_[last_tags];
            if (s.left() >= prev.tags_raw.size() &&
                std::memcmp(start, prev.tags_raw.data(), prev.tags_raw.size()) == 0) {
              s.Skip(prev.tags_raw.size());
              point.tags_raw = std::string_view(start, prev.tags_raw.size());
              point.tags_begin = prev.tags_begin;
              point.tags_count = prev.tags_count;
              last_tags = points_.size() - 1;
              break;
            }
          }
          s.Take('{');
          const size_t begin = tags_.size();
          for (;;) {
            s.SkipWs();
            storage::TagRef tag;
            if (!s.Plain(&tag.key)) return false;
            s.SkipWs();
            if (!s.Take(':')) return false;
            s.SkipWs();
            if (!s.Plain(&tag.value)) return false;
            tags_.push_back(tag);
            s.SkipWs();
            if (s.Take(',')) continue;
            if (s.Take('}')) break;
            return false;
          }
          point.tags_raw = std::string_view(start, static_cast<size_t>(s.pos() - start));
          point.tags_begin = static_cast<uint32_t>(begin);
          point.tags_count = static_cast<uint32_t>(tags_.size() - begin);
          last_tags = points_.size() - 1;
          break;
        }
      }
      s.SkipWs();
      if (s.Take(',')) continue;
      if (s.Take('}')) break;
      return false;
    }
    s.SkipWs();
    if (s.Take(',')) continue;
    if (s.Take(']')) return true;
    return false;
  }
}

}  // namespace sundial::ingest
