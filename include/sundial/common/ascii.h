// ASCII case helpers for the names, units and keywords of the protocols
// Sundial speaks. They never depend on the locale, as std::tolower and
// strcasecmp do (the process never calls setlocale, so they agree).
//
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <string_view>

namespace sundial {

inline char AsciiLower(char c) {
  return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}

inline std::string AsciiLower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = AsciiLower(c);
  return out;
}

// ASCII case-insensitive equality.
inline bool EqualsNoCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (AsciiLower(a[i]) != AsciiLower(b[i])) return false;
  }
  return true;
}

// Whether s begins with prefix (case-sensitive).
inline bool StartsWith(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

}  // namespace sundial
