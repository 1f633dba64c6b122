#include "sundial/query/json_format.h"

#include <charconv>
#include <cmath>
#include <cstdlib>

namespace sundial::query {
namespace {

// Writes the Java layout of a finite, non-zero v into out.
void AppendFiniteJava(double v, std::string* out) {
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof(buf), v, std::chars_format::scientific);
  std::string_view sci(buf, static_cast<size_t>(res.ptr - buf));
  // sci is "[-]d[.ddd]e[+-]XX".
  bool neg = false;
  if (!sci.empty() && sci[0] == '-') {
    neg = true;
    sci.remove_prefix(1);
  }
  const size_t epos = sci.find('e');
  std::string digits;
  for (size_t i = 0; i < epos; ++i) {
    if (sci[i] != '.') digits.push_back(sci[i]);
  }
  const int exp = std::atoi(std::string(sci.substr(epos + 1)).c_str());
  while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
  if (neg) out->push_back('-');
  const double a = std::fabs(v);
  if (a >= 1e-3 && a < 1e7) {
    if (exp >= 0) {
      const size_t int_len = static_cast<size_t>(exp) + 1;
      if (digits.size() <= int_len) {
        out->append(digits);
        out->append(int_len - digits.size(), '0');
        out->append(".0");
      } else {
        out->append(digits, 0, int_len);
        out->push_back('.');
        out->append(digits, int_len, std::string::npos);
      }
    } else {
      out->append("0.");
      out->append(static_cast<size_t>(-exp - 1), '0');
      out->append(digits);
    }
    return;
  }
  out->push_back(digits[0]);
  out->push_back('.');
  if (digits.size() > 1) {
    out->append(digits, 1, std::string::npos);
  } else {
    out->push_back('0');
  }
  out->push_back('E');
  AppendInt(exp, out);
}

}  // namespace

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
