// Decimal integer parsing for every text Sundial reads: put lines, JSON
// bodies, query parameters, config values.
//
// Contract: only ASCII digits with an optional leading sign where stated; no
// whitespace, no locale, no exceptions, no allocation. A value out of range
// is an error, never wrapped or clamped. Inline because ingest parses two
// integers per point with them.
//
// Thread-safety: pure functions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace sundial {

// True if the 8 bytes at p are ASCII digits; *out is then their value. Eight
// at once (SWAR) on little-endian CPUs, one by one elsewhere.
inline bool EightDigits(const char* p, uint64_t* out) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  constexpr uint64_t kZeros = 0x3030303030303030ull;
  constexpr uint64_t kHighNibbles = 0xF0F0F0F0F0F0F0F0ull;
  uint64_t w;
  std::memcpy(&w, p, 8);
  // Every byte in 0x30..0x39: its high nibble is 3, also after adding 6.
  if ((w & kHighNibbles) != kZeros ||
      ((w + 0x0606060606060606ull) & kHighNibbles) != kZeros) {
    return false;
  }
  uint64_t d = w - kZeros;  // byte k: digit k (the first one lowest)
  d = (d * 10 + (d >> 8)) & 0x00FF00FF00FF00FFull;    // pairs: 0..99
  d = (d * 100 + (d >> 16)) & 0x0000FFFF0000FFFFull;  // quads: 0..9999
  *out = (d * 10000 + (d >> 32)) & 0xFFFFFFFFull;     // all eight
  return true;
#else
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) {
    const auto d = static_cast<unsigned>(static_cast<unsigned char>(p[i]) - '0');
    if (d > 9) return false;
    v = v * 10 + d;
  }
  *out = v;
  return true;
#endif
}

// At most this many digits can never overflow a uint64 or an int64.
constexpr size_t kSafeDigits = 18;

// s is 1..kSafeDigits ASCII digits (no sign): *out is its value. The fast
// form for timestamps and counters; false for anything else, including
// longer inputs (use ParseUint64 / ParseInt64 for those).
inline bool ParseShortDigits(std::string_view s, uint64_t* out) {
  if (s.empty() || s.size() > kSafeDigits) return false;
  uint64_t v = 0;
  size_t i = 0;
  if (s.size() >= 8) {  // timestamps: 10 or 13 digits
    if (!EightDigits(s.data(), &v)) return false;
    i = 8;
  }
  for (; i < s.size(); ++i) {
    const auto d = static_cast<unsigned>(static_cast<unsigned char>(s[i]) - '0');
    if (d > 9) return false;
    v = v * 10 + d;
  }
  *out = v;
  return true;
}

// Parses the leading ASCII digits of s, at most up to max (inclusive).
// Returns how many bytes were digits, or 0 if there were none or the value
// exceeds max; *out is set only on success.
inline size_t ParseLeadingDigits(std::string_view s, uint64_t max, uint64_t* out) {
  uint64_t v = 0;
  size_t i = 0;
  for (; i < s.size(); ++i) {
    const auto d = static_cast<unsigned>(static_cast<unsigned char>(s[i]) - '0');
    if (d > 9) break;
    // v * 10 + d <= max, without overflowing.
    if (v > max / 10 || (v == max / 10 && d > max % 10)) return 0;
    v = v * 10 + d;
  }
  if (i != 0) *out = v;
  return i;
}

// s is one or more ASCII digits (no sign) whose value fits in a uint64.
inline bool ParseUint64(std::string_view s, uint64_t* out) {
  if (ParseShortDigits(s, out)) return true;
  uint64_t v = 0;
  if (s.empty() || ParseLeadingDigits(s, UINT64_MAX, &v) != s.size()) return false;
  *out = v;
  return true;
}

// s is [+-]? followed by one or more ASCII digits, within int64 (Java's
// Long.parseLong grammar, radix 10).
inline bool ParseInt64(std::string_view s, int64_t* out) {
  bool negative = false;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
    negative = s[0] == '-';
    s.remove_prefix(1);
  }
  uint64_t v = 0;
  if (!ParseShortDigits(s, &v)) {
    const uint64_t limit = negative ? uint64_t{1} << 63 : (uint64_t{1} << 63) - 1;
    if (s.empty() || ParseLeadingDigits(s, limit, &v) != s.size()) return false;
  }
  *out = negative ? static_cast<int64_t>(0 - v) : static_cast<int64_t>(v);
  return true;
}

}  // namespace sundial
