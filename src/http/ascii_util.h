// Small ASCII helpers shared by the http/ sources (header names, codings).
#pragma once

#include <string_view>

#include "sundial/common/ascii.h"

namespace sundial::http {

// Without leading and trailing spaces and tabs (HTTP's optional whitespace).
inline std::string_view TrimOws(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

}  // namespace sundial::http
