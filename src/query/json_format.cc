#include "sundial/query/json_format.h"

#include <charconv>
#include <cmath>

namespace sundial::query {
namespace {

// "00" "01" ... "99".
constexpr char kDigitPairs[] =
    "0001020304050607080910111213141516171819202122232425262728293031323334353637383940414243444546474849"
    "5051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596979899";

// Writes the n low digits of x (zero-padded), ending at end.
void WriteDigitsBackward(uint32_t x, int n, char* end) {
  for (; n >= 2; n -= 2) {
    const uint32_t pair = x % 100;
    x /= 100;
    end -= 2;
    end[0] = kDigitPairs[2 * pair];
    end[1] = kDigitPairs[2 * pair + 1];
  }
  if (n == 1) *--end = static_cast<char>('0' + x % 10);
}

// Writes x < 10^8 without leading zeros.
char* WriteSmall(uint32_t x, char* out) {
  int n = 1;
  for (uint32_t p = 10; n < 8 && x >= p; p *= 10) ++n;
  WriteDigitsBackward(x, n, out + n);
  return out + n;
}

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
  const double a = std::fabs(v);
  if (!(a >= 1e-3 && a < 1e7)) return nullptr;
  const double n = static_cast<double>(static_cast<int64_t>(a * 1e4 + 0.5));  // < 1e11
  // The exact test, on n / 10^4: the same rational as the stripped form
  // below, so the same double. Tested first, it needs none of the digits.
  if (n / 1e4 != a) return nullptr;
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
  const uint32_t frac = static_cast<uint32_t>(rest);
  if (v < 0) *out++ = '-';
  out = WriteSmall(static_cast<uint32_t>(ip), out);
  *out++ = '.';
  if (frac == 0) {
    *out++ = '0';
    return out;
  }
  // All four decimals, then the trailing zeros cut (counted without
  // branches: they depend on the data).
  WriteDigitsBackward(frac, 4, out + 4);
  const int zeros = (frac % 10 == 0) + (frac % 100 == 0) + (frac % 1000 == 0);
  return out + 4 - zeros;
}

char* WriteInt(int64_t v, char* out) {
  constexpr uint64_t kPart = 100000000;  // 10^8
  uint64_t u = static_cast<uint64_t>(v);
  if (v < 0) {
    *out++ = '-';
    u = 0 - u;
  }
  if (u < kPart) return WriteSmall(static_cast<uint32_t>(u), out);
  const uint64_t high = u / kPart;
  const uint32_t low = static_cast<uint32_t>(u - high * kPart);
  if (high < kPart) {
    out = WriteSmall(static_cast<uint32_t>(high), out);
  } else {  // at most 4 more digits above the middle part
    const uint64_t top = high / kPart;
    out = WriteSmall(static_cast<uint32_t>(top), out);
    WriteDigitsBackward(static_cast<uint32_t>(high - top * kPart), 8, out + 8);
    out += 8;
  }
  WriteDigitsBackward(low, 8, out + 8);
  return out + 8;
}

void AppendInt(int64_t v, std::string* out) {
  char buf[kIntMax];
  out->append(buf, static_cast<size_t>(WriteInt(v, buf) - buf));
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

}  // namespace sundial::query
