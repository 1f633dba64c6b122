// Small ASCII helpers shared by the http/ sources (header names, codings).
#pragma once

#include <strings.h>

#include <string_view>

namespace sundial::http {

// ASCII case-insensitive equality (header names and tokens).
inline bool EqualsNoCase(std::string_view a, std::string_view b) {
  return a.size() == b.size() && strncasecmp(a.data(), b.data(), a.size()) == 0;
}

// Without leading and trailing spaces and tabs (HTTP's optional whitespace).
inline std::string_view TrimOws(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

}  // namespace sundial::http
