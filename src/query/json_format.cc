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

// The shortest decimal r / 10^d (d <= 4) that parses back to v, if any.
// If some r / 10^d parses to v, then round(|v| * 10^4) is r * 10^(4-d)
// exactly (|v| * 10^4 < 1e11 is off by far less than 0.5), so stripping
// its trailing zeros gives the same rational with the fewest decimals; one
// exact test (dividing two exact integers rounds correctly) then tells
// whether it parses to v. If it does not, no decimal of <= 4 places does:
// they are all that same rational. At most "-9999999.9999": 13 bytes.
char* WriteShortJavaDouble(double v, char* out) {
  static constexpr double kPow10[] = {1, 10, 100, 1000, 10000};
  const double a = std::fabs(v);
  if (!(a >= 1e-3 && a < 1e7)) return nullptr;
  const double n = static_cast<double>(static_cast<int64_t>(a * 1e4 + 0.5));  // < 1e11
  // n = ip * 10^4 + frac, in doubles (every value here is an exact integer
  // below 2^53): no 64-bit division, which 32-bit ARM does in software.
  int32_t ip = static_cast<int32_t>(n * 1e-4);
  double rest = n - static_cast<double>(ip) * 1e4;
  if (rest < 0) {
    --ip;
    rest += 1e4;
  } else if (rest >= 1e4) {
    ++ip;
    rest -= 1e4;
  }
  uint32_t frac = static_cast<uint32_t>(rest);
  int d = 4;
  if (frac == 0) {
    d = 0;
  } else {
    while (frac % 10 == 0) {
      frac /= 10;
      --d;
    }
  }
  // ip * 10^d + frac is n with its trailing zeros stripped.
  const double scale = kPow10[d];
  if ((static_cast<double>(ip) * scale + frac) / scale != a) return nullptr;
  if (v < 0) *out++ = '-';
  out = std::to_chars(out, out + 8, ip).ptr;
  *out++ = '.';
  if (d == 0) {
    *out++ = '0';
    return out;
  }
  for (int i = d - 1; i >= 0; --i, frac /= 10) out[i] = static_cast<char>('0' + frac % 10);
  return out + d;
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
