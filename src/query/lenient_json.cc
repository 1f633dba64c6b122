#include "lenient_json_impl.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>

#include "sundial/common/ascii.h"
#include "sundial/query/json_format.h"
#include "sundial/query/query_spec.h"

namespace sundial::query {

Status JsonError(const std::string& details) {
  return Status::InvalidArgument(std::string("Unable to parse the given JSON") +
                                 kDetailsSeparator + details);
}

Status FieldError(const std::string& name) {
  return JsonError("Cannot deserialize field '" + name + "'");
}

Status CheckBodyNotBlank(std::string_view body) {
  for (const char c : body) {
    if (!std::isspace(static_cast<unsigned char>(c))) return Status::OK();
  }
  return Status::InvalidArgument(std::string("Missing message content") + kDetailsSeparator +
                                 "Supply valid JSON formatted data in the body of your request");
}

bool LenientString(const LenientJson& j, DoubleText floats, std::string* out) {
  if (j.is_string()) {
    *out = j.get_ref<const std::string&>();
  } else if (j.is_number_unsigned()) {
    *out = std::to_string(j.get<uint64_t>());
  } else if (j.is_number_integer()) {
    *out = std::to_string(j.get<int64_t>());
  } else if (j.is_number_float()) {
    const double d = j.get<double>();
    if (floats == DoubleText::kJava) {
      *out = JavaDoubleToString(d);
    } else {
      char buf[64];
      const auto r = std::to_chars(buf, buf + sizeof(buf), d, std::chars_format::fixed);
      *out = std::string(buf, static_cast<size_t>(r.ptr - buf));
    }
  } else if (j.is_boolean()) {
    *out = j.get<bool>() ? "true" : "false";
  } else {
    return false;
  }
  return true;
}

bool LenientBool(const LenientJson& j, bool* out) {
  if (j.is_boolean()) {
    *out = j.get<bool>();
  } else if (j.is_string()) {
    const std::string s = AsciiLower(j.get_ref<const std::string&>());
    if (s != "true" && s != "false" && !s.empty()) return false;
    *out = s == "true";
  } else if (j.is_number()) {
    *out = j.get<double>() != 0;
  } else {
    return j.is_null();
  }
  return true;
}

bool LenientInt64(const LenientJson& j, int64_t* out) {
  // is_number_integer() is true for unsigned values too: test those first,
  // so that one above INT64_MAX clamps instead of wrapping negative.
  if (j.is_number_unsigned()) {
    const uint64_t u = j.get<uint64_t>();
    *out = u > static_cast<uint64_t>(INT64_MAX) ? INT64_MAX : static_cast<int64_t>(u);
  } else if (j.is_number_integer()) {
    *out = j.get<int64_t>();
  } else if (j.is_number_float()) {
    const double d = j.get<double>();
    if (std::isnan(d)) return false;
    *out = d >= 9.2233720368547758e18    ? INT64_MAX
           : d <= -9.2233720368547758e18 ? INT64_MIN
                                          : static_cast<int64_t>(d);
  } else if (j.is_string()) {
    const std::string& s = j.get_ref<const std::string&>();
    int64_t v = 0;
    const auto r = std::from_chars(s.data(), s.data() + s.size(), v);
    if (r.ec != std::errc() || r.ptr != s.data() + s.size()) return false;
    *out = v;
  } else {
    return false;
  }
  return true;
}

bool LenientDouble(const LenientJson& j, double* out) {
  if (j.is_number()) {
    *out = j.get<double>();
    return true;
  }
  if (!j.is_string()) return j.is_null();
  const std::string& s = j.get_ref<const std::string&>();
  if (s == "NaN") {
    *out = std::numeric_limits<double>::quiet_NaN();
    return true;
  }
  double v = 0;
  const auto r = std::from_chars(s.data(), s.data() + s.size(), v);
  if (r.ec != std::errc() || r.ptr != s.data() + s.size()) return false;
  *out = v;
  return true;
}

}  // namespace sundial::query
