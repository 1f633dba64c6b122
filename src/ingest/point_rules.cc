#include "sundial/ingest/point_rules.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "ingest/text_util.h"

namespace sundial::ingest {
namespace {

constexpr int64_t kSecondMask = static_cast<int64_t>(0xFFFFFFFF00000000ull);
constexpr int64_t kMaxMsTimestamp = 9999999999999LL;

std::string_view TagValueText(std::string_view v) {
  return IsNullTagValue(v) ? std::string_view("null") : v;
}

// Java's Arrays.toString(byte[]) + '/' + flags of the value as OpenTSDB
// encodes it: integers on 1, 2, 4 or 8 big-endian bytes (flags = length-1),
// floats on 4 bytes (flags 0x8|3) or 8 bytes (flags 0x8|7).
std::string JavaValueBytes(const ParsedValue& v) {
  uint64_t bits;
  int len;
  int flags;
  if (v.value.is_int()) {
    const int64_t i = v.value.int_value();
    bits = static_cast<uint64_t>(i);
    len = (i >= -128 && i <= 127) ? 1 : (i >= -32768 && i <= 32767) ? 2
          : (i >= INT32_MIN && i <= INT32_MAX) ? 4 : 8;
    flags = len - 1;
  } else if (v.fits_float32) {
    const float f = static_cast<float>(v.value.float_value());
    uint32_t b;
    std::memcpy(&b, &f, sizeof b);
    bits = b;
    len = 4;
    flags = 0x8 | 0x3;
  } else {
    const double d = v.value.float_value();
    std::memcpy(&bits, &d, sizeof bits);
    len = 8;
    flags = 0x8 | 0x7;
  }
  std::string out = "[";
  for (int k = len - 1; k >= 0; --k) {
    const auto byte = static_cast<int8_t>(static_cast<uint8_t>(bits >> (8 * k)));
    out += std::to_string(byte);
    if (k > 0) out += ", ";
  }
  out += "]/";
  out += std::to_string(flags);
  return out;
}

// Java's Float/Double.toString for the non-finite values row 9 reports.
std::string_view JavaNonFinite(double d) {
  if (std::isnan(d)) return "NaN";
  return d > 0 ? "Infinity" : "-Infinity";
}

}  // namespace

NameRules::NameRules(std::string_view allow_specialchars) {
  for (unsigned c = 'a'; c <= 'z'; ++c) ascii_ok_.set(c);
  for (unsigned c = 'A'; c <= 'Z'; ++c) ascii_ok_.set(c);
  for (unsigned c = '0'; c <= '9'; ++c) ascii_ok_.set(c);
  for (unsigned char c : std::string_view("-_./")) ascii_ok_.set(c);
  for (size_t i = 0; i < allow_specialchars.size();) {
    uint32_t cp;
    i += DecodeChar(allow_specialchars, i, &cp);
    if (cp < 0x80) {
      ascii_ok_.set(cp);
    } else {
      extra_.push_back(cp);
    }
  }
}

bool NameRules::AllowedCodePoint(uint32_t cp) const {
  if (cp < 0x80) return ascii_ok_.test(cp);
  return IsUnicodeLetter(cp) || std::find(extra_.begin(), extra_.end(), cp) != extra_.end();
}

bool NameRules::Valid(std::string_view s) const {
  if (s.empty()) return false;
  for (size_t i = 0; i < s.size();) {
    const auto b = static_cast<unsigned char>(s[i]);
    if (b < 0x80) {
      if (!ascii_ok_.test(b)) return false;
      ++i;
      continue;
    }
    uint32_t cp;
    i += DecodeChar(s, i, &cp);
    if (!AllowedCodePoint(cp)) return false;
  }
  return true;
}

bool NameRules::Validate(std::string_view what, std::string_view s, std::string* error) const {
  if (IsNullTagValue(s) || s.empty()) {
    error->assign("Invalid ");
    error->append(what);
    error->append(IsNullTagValue(s) ? ": null" : ": empty string");
    return false;
  }
  for (size_t i = 0; i < s.size();) {
    uint32_t cp;
    i += DecodeChar(s, i, &cp);
    if (!AllowedCodePoint(cp)) {
      error->assign("Invalid ");
      error->append(what);
      error->append(" (\"");
      error->append(s);
      error->append("\"): illegal character: ");
      AppendUtf8(cp, error);
      return false;
    }
  }
  return true;
}

PointRules::PointRules(const IngestOptions& options)
    : max_tags_(options.max_tags), names_(options.allow_specialchars) {}

bool PointRules::CheckValueAndTimestamp(std::string_view metric, int64_t ts,
                                        const ParsedValue& v, const storage::TagRef* tags,
                                        size_t num_tags, PutError* error) const {
  if (!v.value.is_int() && !std::isfinite(v.value.float_value())) {
    error->kind = PutErrorKind::kIllegalArgument;
    error->message = "value is NaN or Infinite: ";
    error->message += JavaNonFinite(v.value.float_value());
    error->message += " for metric=";
    error->message += metric;
    error->message += " timestamp=";
    error->message += std::to_string(ts);
    return false;
  }
  if (ts < 0 || ((ts & kSecondMask) != 0 && ts > kMaxMsTimestamp)) {
    error->kind = PutErrorKind::kIllegalArgument;
    error->message = ts < 0 ? "negative " : "bad";
    error->message += " timestamp=" + std::to_string(ts) + " when trying to add value=";
    error->message += JavaValueBytes(v);
    error->message += " to metric=";
    error->message += metric;
    error->message += ", tags=" + FormatJavaTagMap(tags, num_tags);
    return false;
  }
  return true;
}

namespace {

// OpenTSDB's tag-count rules: at least one tag when require_tag, at most
// max_tags. On failure sets *message and returns false.
bool TagCountOk(std::string_view metric, const storage::TagRef* tags, size_t num_tags,
                size_t max_tags, bool require_tag, std::string* message) {
  if (num_tags == 0 && require_tag) {
    *message = "Need at least one tag (metric=" + std::string(metric) + ", tags={})";
    return false;
  }
  if (num_tags > max_tags) {
    *message = "Too many tags: " + std::to_string(num_tags) +
               " maximum allowed: " + std::to_string(max_tags) +
               ", tags: " + FormatJavaTagMap(tags, num_tags);
    return false;
  }
  return true;
}

}  // namespace

bool PointRules::CheckMetricAndTags(std::string_view metric, const storage::TagRef* tags,
                                    size_t num_tags, PutError* error,
                                    bool require_tag) const {
  error->kind = PutErrorKind::kIllegalArgument;
  if (!TagCountOk(metric, tags, num_tags, max_tags_, require_tag, &error->message)) return false;
  if (!names_.Validate("metric name", metric, &error->message)) return false;
  bool all_valid = true;
  for (size_t i = 0; i < num_tags && all_valid; ++i) {
    all_valid = names_.Valid(tags[i].key) && !IsNullTagValue(tags[i].value) &&
                names_.Valid(tags[i].value);
  }
  if (all_valid) return true;
  // Report the first bad tag in the order OpenTSDB iterates its HashMap.
  for (size_t i : JavaHashMapOrder(tags, num_tags)) {
    const std::string key(tags[i].key);
    const std::string_view value = tags[i].value;
    const std::string name_what = "tag name with value [" + std::string(TagValueText(value)) + "]";
    if (!names_.Validate(name_what, key, &error->message)) return false;
    if (!names_.Validate("tag value with key [" + key + "]", value, &error->message)) {
      return false;
    }
  }
  return true;
}

namespace {

// s is non-empty and has no byte < 0x20 and no DEL.
bool PlainText(std::string_view what, std::string_view s, std::string* error) {
  if (s.empty()) {
    *error = "Invalid " + std::string(what) + ": empty string";
    return false;
  }
  for (char c : s) {
    const auto b = static_cast<unsigned char>(c);
    if (b < 0x20 || b == 0x7f) {
      *error = "Invalid " + std::string(what) + " (\"" + std::string(s) + "\"): control character";
      return false;
    }
  }
  return true;
}

}  // namespace

bool PointRules::CheckTagCountAndText(std::string_view metric, const storage::TagRef* tags,
                                      size_t num_tags, PutError* error,
                                      bool require_tag) const {
  error->kind = PutErrorKind::kIllegalArgument;
  if (!TagCountOk(metric, tags, num_tags, max_tags_, require_tag, &error->message)) return false;
  if (!PlainText("metric name", metric, &error->message)) return false;
  for (size_t i = 0; i < num_tags; ++i) {
    if (!PlainText("tag name", tags[i].key, &error->message)) return false;
    if (IsNullTagValue(tags[i].value) ||
        !PlainText("tag value with key [" + std::string(tags[i].key) + "]", tags[i].value,
                   &error->message)) {
      return false;
    }
  }
  return true;
}

std::vector<size_t> JavaHashMapOrder(const storage::TagRef* tags, size_t num_tags) {
  // HashMap starts with 16 buckets and doubles when size exceeds 3/4 of them;
  // iteration walks buckets in index order, each bucket in insertion order.
  uint32_t buckets = 16;
  while (num_tags > buckets / 4 * 3) buckets *= 2;
  std::vector<std::pair<uint32_t, size_t>> slots(num_tags);
  for (size_t i = 0; i < num_tags; ++i) {
    const auto h = static_cast<uint32_t>(JavaStringHash(tags[i].key));
    slots[i] = {(h ^ (h >> 16)) & (buckets - 1), i};
  }
  std::stable_sort(slots.begin(), slots.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<size_t> order(num_tags);
  for (size_t i = 0; i < num_tags; ++i) order[i] = slots[i].second;
  return order;
}

std::string FormatJavaTagMap(const storage::TagRef* tags, size_t num_tags) {
  std::string out = "{";
  bool first = true;
  for (size_t i : JavaHashMapOrder(tags, num_tags)) {
    if (!first) out += ", ";
    first = false;
    out += tags[i].key;
    out += '=';
    out += TagValueText(tags[i].value);
  }
  out += '}';
  return out;
}

}  // namespace sundial::ingest
