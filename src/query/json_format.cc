#include "sundial/query/json_format.h"

#include <charconv>
#include <cmath>

namespace sundial::query {
namespace {

// Writes the Java layout of a finite, non-zero v into out (no allocation).
void AppendFiniteJava(double v, std::string* out) {
  char shortest[kShortDoubleMax];
  if (const char* end = WriteShortJavaDouble(v, shortest)) {
    out->append(shortest, static_cast<size_t>(end - shortest));
    return;
  }
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof(buf), v, std::chars_format::scientific);
  // buf is "[-]d[.ddd]e[+-]XX".
  const char* p = buf;
  const char* const end = res.ptr;
  char digits[24];
  size_t nd = 0;
  if (*p == '-') {
    out->push_back('-');
    ++p;
  }
  for (; p < end && *p != 'e'; ++p) {
    if (*p != '.' && nd < sizeof(digits)) digits[nd++] = *p;
  }
  int exp = 0;
  bool eneg = false;
  if (p < end) ++p;  // 'e'
  if (p < end && (*p == '-' || *p == '+')) eneg = *p++ == '-';
  for (; p < end; ++p) exp = exp * 10 + (*p - '0');
  if (eneg) exp = -exp;
  while (nd > 1 && digits[nd - 1] == '0') --nd;
  const double a = std::fabs(v);
  if (a >= 1e-3 && a < 1e7) {
    if (exp >= 0) {
      const size_t int_len = static_cast<size_t>(exp) + 1;
      if (nd <= int_len) {
        out->append(digits, nd);
        out->append(int_len - nd, '0');
        out->append(".0");
      } else {
        out->append(digits, int_len);
        out->push_back('.');
        out->append(digits + int_len, nd - int_len);
      }
    } else {
      out->append("0.");
      out->append(static_cast<size_t>(-exp - 1), '0');
      out->append(digits, nd);
    }
    return;
  }
  out->push_back(digits[0]);
  out->push_back('.');
  if (nd > 1) {
    out->append(digits + 1, nd - 1);
  } else {
    out->push_back('0');
  }
  out->push_back('E');
  AppendInt(exp, out);
}

}  // namespace

// Tries d = 0..4 and takes the first d for which the decimal r / 10^d (r
// an integer) parses back to v: dividing two exact integers rounds
// correctly, so that test is exact, and no decimal with fewer digits can
// parse to v (it would have matched a smaller d), so this is the shortest
// round-trip form. At most "-9999999.9999": 13 bytes.
char* WriteShortJavaDouble(double v, char* out) {
  static constexpr double kPow10[] = {1, 10, 100, 1000, 10000};
  const double a = std::fabs(v);
  if (!(a >= 1e-3 && a < 1e7)) return nullptr;
  for (int d = 0; d <= 4; ++d) {
    // a * 10^d < 1e11: the truncating conversion is exact and cheap.
    const int64_t n = static_cast<int64_t>(a * kPow10[d] + 0.5);
    if (static_cast<double>(n) / kPow10[d] != a) continue;
    const int64_t scale = static_cast<int64_t>(kPow10[d]);
    if (v < 0) *out++ = '-';
    out = std::to_chars(out, out + 8, n / scale).ptr;
    *out++ = '.';
    if (d == 0) {
      *out++ = '0';
      return out;
    }
    int64_t f = n % scale;
    for (int i = d - 1; i >= 0; --i, f /= 10) out[i] = static_cast<char>('0' + f % 10);
    return out + d;
  }
  return nullptr;
}

void AppendInt(int64_t v, std::string* out) {
  char buf[24];
  auto res = std::to_chars(buf, buf + sizeof(buf), v);
  out->append(buf, static_cast<size_t>(res.ptr - buf));
}

std::string JavaDoubleToString(double v) {
  std::string s;
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "Infinity" : "-Infinity";
  if (v == 0) return std::signbit(v) ? "-0.0" : "0.0";
  AppendFiniteJava(v, &s);
  return s;
}

void AppendJavaDouble(double v, std::string* out) {
  if (std::isnan(v)) {
    out->append("\"NaN\"");
  } else if (std::isinf(v)) {
    out->append(v > 0 ? "\"Infinity\"" : "\"-Infinity\"");
  } else if (v == 0) {
    out->append(std::signbit(v) ? "-0.0" : "0.0");
  } else {
    AppendFiniteJava(v, out);
  }
}

void AppendJsonString(std::string_view s, std::string* out) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  out->push_back('"');
  size_t run = 0;  // start of the pending unescaped run
  for (size_t i = 0; i < s.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c != '"' && c != '\\') continue;
    out->append(s.data() + run, i - run);
    run = i + 1;
    if (c == '"' || c == '\\') {
      out->push_back('\\');
      out->push_back(static_cast<char>(c));
    } else {
      out->append("\\u00");
      out->push_back(kHex[c >> 4]);
      out->push_back(kHex[c & 15]);
    }
  }
  out->append(s.data() + run, s.size() - run);
  out->push_back('"');
}

}  // namespace sundial::query
