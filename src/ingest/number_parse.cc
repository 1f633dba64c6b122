// ParseJavaLong and ParseValue (declared in point_rules.h): OpenTSDB's number
// rules for timestamps and values, without allocation on success.
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>

#include "ingest/text_util.h"
#include "sundial/common/parse_int.h"
#include "sundial/ingest/point_rules.h"

namespace sundial::ingest {
namespace {

bool Fail(std::string_view prefix, std::string_view s, std::string* error) {
  error->assign(prefix);
  error->append(s);
  return false;
}

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// Java's NumberFormatException text for a float that does not parse.
bool FloatFail(std::string_view s, std::string* error) {
  size_t points = 0;
  for (char c : s) points += c == '.';
  if (points > 1) {
    error->assign("multiple points");
  } else {
    error->assign("For input string: \"");
    error->append(s);
    error->push_back('"');
  }
  return false;
}

// Checks the decimal float grammar of §2.4 on t (already trimmed of the Java
// suffix): [+-]? (d+ [.] d* | . d+) ([eE] [+-]? d+)?
bool DecimalGrammar(std::string_view t) {
  size_t i = 0;
  const size_t n = t.size();
  if (i < n && (t[i] == '+' || t[i] == '-')) ++i;
  size_t digits = 0;
  while (i < n && IsDigit(t[i])) ++i, ++digits;
  if (i < n && t[i] == '.') {
    ++i;
    while (i < n && IsDigit(t[i])) ++i, ++digits;
  }
  if (digits == 0) return false;
  if (i < n && (t[i] == 'e' || t[i] == 'E')) {
    ++i;
    if (i < n && (t[i] == '+' || t[i] == '-')) ++i;
    size_t exp_digits = 0;
    while (i < n && IsDigit(t[i])) ++i, ++exp_digits;
    if (exp_digits == 0) return false;
  }
  return i == n;
}

}  // namespace

bool ParseJavaLong(std::string_view s, int64_t* out, std::string* error) {
  // OpenTSDB rejects long texts before looking at them, leading zeros or not.
  const size_t n = s.size();
  const bool sign = n > 0 && (s[0] == '+' || s[0] == '-');
  if (n <= (sign ? 20u : 19u) && ParseInt64(s, out)) return true;
  // Only the error text is left to find, in the order Java checks.
  if (n == 0) {
    error->assign("Empty string");
    return false;
  }
  if (sign && n == 1) return Fail("Just a sign, no value: ", s, error);
  if (n > (sign ? 20u : 19u)) return Fail("Value too long: ", s, error);
  for (size_t i = sign ? 1 : 0; i < n; ++i) {
    if (IsDigit(s[i])) continue;
    uint32_t cp;
    DecodeChar(s, i, &cp);
    error->assign("Invalid character '");
    AppendUtf8(cp, error);
    error->append("' in ");
    error->append(s);
    return false;
  }
  return Fail("Overflow in ", s, error);
}

bool ParseValue(std::string_view text, ParsedValue* out, std::string* error) {
  bool looks_like_integer = true;
  for (char c : text) {
    if (c == '.' || c == 'e' || c == 'E') {
      looks_like_integer = false;
      break;
    }
  }
  if (looks_like_integer) {
    int64_t v;
    if (!ParseJavaLong(text, &v, error)) return false;
    out->value = Value::Int(v);
    out->fits_float32 = false;
    return true;
  }
  // Java's Double.parseDouble trims characters <= ' ' and accepts a
  // trailing type suffix.
  std::string_view t = text;
  while (!t.empty() && static_cast<unsigned char>(t.front()) <= ' ') t.remove_prefix(1);
  while (!t.empty() && static_cast<unsigned char>(t.back()) <= ' ') t.remove_suffix(1);
  if (!t.empty() && (t.back() == 'f' || t.back() == 'F' || t.back() == 'd' || t.back() == 'D')) {
    t.remove_suffix(1);
  }
  if (!DecimalGrammar(t)) return FloatFail(text, error);
  const bool negative = t[0] == '-';
  if (t[0] == '+' || t[0] == '-') t.remove_prefix(1);
  double d = 0;
  const auto res = std::from_chars(t.data(), t.data() + t.size(), d);
  if (res.ec == std::errc::result_out_of_range) {
    // Overflow or underflow: strtod gives the IEEE result (+-inf or a
    // denormal/zero). Rare, so the copy does not matter.
    const std::string copy(t);
    d = std::strtod(copy.c_str(), nullptr);
  } else if (res.ec != std::errc() || res.ptr != t.data() + t.size()) {
    return FloatFail(text, error);
  }
  if (negative) d = -d;
  out->value = Value::Float(d);
  // Converting a double beyond float's range is undefined: test first.
  out->fits_float32 = std::isinf(d) || (std::fabs(d) <= std::numeric_limits<float>::max() &&
                                        static_cast<double>(static_cast<float>(d)) == d);
  return true;
}

}  // namespace sundial::ingest
