#include "option_values.h"

#include <string>

#include "sundial/common/ascii.h"
#include "sundial/common/parse_int.h"

namespace sundial::server {

namespace {

// Leading decimal digits of text as a number; *rest gets what follows.
bool ParseDigits(std::string_view text, uint64_t* value, std::string_view* rest) {
  const size_t n = ParseLeadingDigits(text, UINT64_MAX, value);
  if (n == 0) return false;
  *rest = text.substr(n);
  return true;
}

}  // namespace

Status ParseUint(std::string_view text, uint64_t min, uint64_t max, uint64_t* out) {
  uint64_t v = 0;
  std::string_view rest;
  if (!ParseDigits(text, &v, &rest) || !rest.empty()) {
    return Status::InvalidArgument("expected a non-negative integer, got", "\"" + std::string(text) + "\"");
  }
  if (v < min || v > max) {
    return Status::InvalidArgument("value out of range", std::string(text) + " (allowed " +
                                                             std::to_string(min) + ".." +
                                                             std::to_string(max) + ")");
  }
  *out = v;
  return Status::OK();
}

Status ParseBytes(std::string_view text, uint64_t min, uint64_t max, uint64_t* out) {
  uint64_t v = 0;
  std::string_view unit;
  const Status bad = Status::InvalidArgument(
      "expected a size such as 512, 64KiB or 16MiB, got", "\"" + std::string(text) + "\"");
  if (!ParseDigits(text, &v, &unit)) return bad;
  uint64_t mult = 1;
  if (unit.empty() || EqualsNoCase(unit, "b")) {
    mult = 1;
  } else if (EqualsNoCase(unit, "k") || EqualsNoCase(unit, "kb") || EqualsNoCase(unit, "kib")) {
    mult = 1ull << 10;
  } else if (EqualsNoCase(unit, "m") || EqualsNoCase(unit, "mb") || EqualsNoCase(unit, "mib")) {
    mult = 1ull << 20;
  } else if (EqualsNoCase(unit, "g") || EqualsNoCase(unit, "gb") || EqualsNoCase(unit, "gib")) {
    mult = 1ull << 30;
  } else {
    return bad;
  }
  if (v > UINT64_MAX / mult) return bad;
  v *= mult;
  if (v < min || v > max) {
    return Status::InvalidArgument("size out of range", std::string(text) + " (allowed " +
                                                            std::to_string(min) + ".." +
                                                            std::to_string(max) + " bytes)");
  }
  *out = v;
  return Status::OK();
}

Status ParseDuration(std::string_view text, std::chrono::milliseconds* out) {
  uint64_t v = 0;
  std::string_view unit;
  const Status bad = Status::InvalidArgument(
      "expected a duration such as 0, 500ms, 30s, 5m, 1h or 1d, got",
      "\"" + std::string(text) + "\"");
  if (!ParseDigits(text, &v, &unit)) return bad;
  uint64_t ms_per = 0;
  if (unit.empty()) {
    if (v != 0) return bad;  // a unit is required
    ms_per = 1;
  } else if (unit == "ms") {
    ms_per = 1;
  } else if (unit == "s") {
    ms_per = 1000;
  } else if (unit == "m") {
    ms_per = 60 * 1000;
  } else if (unit == "h") {
    ms_per = 3600 * 1000;
  } else if (unit == "d") {
    ms_per = 86400 * 1000ull;
  } else if (unit == "w") {
    ms_per = 7 * 86400 * 1000ull;
  } else {
    return bad;
  }
  // Keep far inside int64 milliseconds (about 290 million years).
  if (v > (uint64_t{1} << 52) / ms_per) return bad;
  *out = std::chrono::milliseconds(static_cast<int64_t>(v * ms_per));
  return Status::OK();
}

Status ParseBool(std::string_view text, bool* out) {
  for (std::string_view t : {"true", "yes", "on", "1"}) {
    if (EqualsNoCase(text, t)) {
      *out = true;
      return Status::OK();
    }
  }
  for (std::string_view f : {"false", "no", "off", "0"}) {
    if (EqualsNoCase(text, f)) {
      *out = false;
      return Status::OK();
    }
  }
  return Status::InvalidArgument("expected true or false, got", "\"" + std::string(text) + "\"");
}

}  // namespace sundial::server
