#include "sundial/ingest/graphite_parser.h"

#include <charconv>
#include <cmath>
#include <string>

namespace sundial::ingest {

namespace {

// Seconds beyond this are refused: the same upper bound as a put's
// millisecond timestamp (9999999999999).
constexpr double kMaxSeconds = 9999999999.999;

bool IsBlank(char c) { return c == ' ' || c == '\t'; }

// Splits off the next blank-separated field of *rest ("" when none is left).
std::string_view NextField(std::string_view* rest) {
  size_t i = 0;
  while (i < rest->size() && IsBlank((*rest)[i])) ++i;
  size_t j = i;
  while (j < rest->size() && !IsBlank((*rest)[j])) ++j;
  const std::string_view field = rest->substr(i, j - i);
  rest->remove_prefix(j);
  return field;
}

// Python's float() for the decimal forms carbon sees: an optional sign,
// digits with an optional point, an optional exponent. Also "nan" and
// "inf", which the caller then refuses.
bool ParseDouble(std::string_view s, double* out) {
  if (!s.empty() && s[0] == '+') s.remove_prefix(1);
  if (s.empty() || s[0] == '+') return false;
  const char* end = s.data() + s.size();
  const auto r = std::from_chars(s.data(), end, *out);
  return r.ec == std::errc() && r.ptr == end;
}

Status Bad(std::string_view what, std::string_view text) {
  return Status::InvalidArgument(what, text);
}

}  // namespace

Status ParseGraphiteLine(std::string_view line, Timestamp now_ms, GraphitePoint* out) {
  std::string_view rest = line;
  const std::string_view name = NextField(&rest);
  const std::string_view value = NextField(&rest);
  const std::string_view ts = NextField(&rest);
  if (name.empty() || value.empty() || !NextField(&rest).empty()) {
    return Bad("expected \"<path> <value> [<timestamp>]\"", line.substr(0, 200));
  }
  const size_t semi = name.find(';');
  out->path = name.substr(0, semi);
  out->tag_text = semi == std::string_view::npos ? std::string_view() : name.substr(semi);
  if (out->path.empty()) return Bad("empty path", name.substr(0, 200));
  if (!ParseDouble(value, &out->value)) return Bad("bad value", value.substr(0, 100));
  if (!std::isfinite(out->value)) return Bad("value is not finite", value);
  if (ts.empty()) {
    out->t_ms = now_ms;
    return Status::OK();
  }
  double seconds = 0;
  if (!ParseDouble(ts, &seconds) || std::isnan(seconds)) {
    return Bad("bad timestamp", ts.substr(0, 100));
  }
  if (seconds == -1) {
    out->t_ms = now_ms;
  } else if (seconds < 0 || seconds > kMaxSeconds) {
    return Bad("timestamp out of range", ts.substr(0, 100));
  } else {
    out->t_ms = static_cast<Timestamp>(std::llround(seconds * 1000));
  }
  return Status::OK();
}

Status ParseGraphiteTags(std::string_view tag_text, std::vector<storage::TagRef>* tags) {
  tags->clear();
  while (!tag_text.empty()) {
    tag_text.remove_prefix(1);  // ';'
    const size_t semi = tag_text.find(';');
    const std::string_view tag = tag_text.substr(0, semi);
    tag_text = semi == std::string_view::npos ? std::string_view() : tag_text.substr(semi);
    const size_t eq = tag.find('=');
    if (eq == std::string_view::npos) return Bad("tag without '='", tag);
    const std::string_view key = tag.substr(0, eq);
    const std::string_view value = tag.substr(eq + 1);
    if (key.empty()) return Bad("empty tag name", tag);
    if (key.find_first_of("!^") != std::string_view::npos) return Bad("bad tag name", key);
    if (value.empty()) return Bad("empty tag value", tag);
    if (value[0] == '~') return Bad("tag value starts with '~'", value);
    bool replaced = false;
    for (storage::TagRef& t : *tags) {
      if (t.key == key) {
        t.value = value;
        replaced = true;
      }
    }
    if (!replaced) tags->push_back({key, value});
  }
  return Status::OK();
}

}  // namespace sundial::ingest
