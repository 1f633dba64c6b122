// TagFilter: one tag-value filter of a sub-query (opentsdb-compat.md §5.4):
// literal_or, iliteral_or, not_literal_or, not_iliteral_or, wildcard,
// iwildcard, regexp.
//
// Why a closed set instead of a plugin registry: these seven are what
// OpenTSDB 2.4 registers and what Grafana lists; a closed enum keeps
// matching branch-predictable and the /api/config/filters text constant.
//
// Matching semantics replicate OpenTSDB: a missing tag key never matches
// (also for the not_* types); wildcard uses OpenTSDB's loose component
// check; regexp is an unanchored search like Java's Matcher.find(), with
// RE2 syntax (Java's for common patterns; no backreferences or
// lookaround). RE2 matches in time linear in the value and with bounded
// stack, so no pattern or tag value can stall or crash a query thread; a
// pattern is at most kMaxRegexLength bytes and compiles within
// kRegexMaxMem bytes, else Create() fails.
//
// Thread-safety: immutable after Create(); Match() may be called
// concurrently.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "sundial/common/status.h"

namespace re2 {
class RE2;
}

namespace sundial::query {

// The longest regexp pattern a filter accepts. The query engine applies a
// lower configurable limit (QueryLimits::max_regex_length) before any
// match; this one bounds the work of parsing itself.
inline constexpr size_t kMaxRegexLength = 64 * 1024;
// Memory RE2 may use for one compiled pattern and its match cache. 1 MiB
// compiles any sane 1 KiB pattern; a pattern needing more (e.g. nested
// counted repetition) is rejected, and a match that fills the DFA cache
// falls back to RE2's slower, still linear, NFA.
inline constexpr int64_t kRegexMaxMem = 1 << 20;

enum class FilterType : uint8_t {
  kLiteralOr, kILiteralOr, kNotLiteralOr, kNotILiteralOr, kWildcard, kIWildcard, kRegexp,
};

class TagFilter {
 public:
  TagFilter();
  ~TagFilter();
  TagFilter(TagFilter&&) noexcept;
  TagFilter& operator=(TagFilter&&) noexcept;

  // Builds a filter of type `type` (a /api/config/filters name, lower-case).
  // Errors: unknown type ("Could not find a tag value filter of the type:
  // <t>"), empty tagk/filter, wildcard without '*', bad regex (including
  // the Java constructs RE2 lacks), regex longer than kMaxRegexLength bytes
  // or needing more than kRegexMaxMem to compile.
  static Status Create(std::string_view type, std::string_view tagk, std::string_view filter,
                       bool group_by, TagFilter* out);

  // Builds a filter from the "k=v" shorthand used by "tags" and m={...}:
  // "*" = any value, "<type>(<expr>)", a value with '*' = case-insensitive
  // wildcard, else literal_or (with '|' alternatives).
  static Status FromShorthand(std::string_view tagk, std::string_view value, bool group_by,
                              TagFilter* out);

  // True if `value` (the series' value for tagk()) passes.
  bool Match(std::string_view value) const;

  FilterType type() const { return type_; }
  // The type name as OpenTSDB reports it (a shorthand wildcard reports
  // "wildcard" even though it is case-insensitive).
  std::string_view type_name() const;
  const std::string& tagk() const { return tagk_; }
  const std::string& filter() const { return filter_; }
  bool group_by() const { return group_by_; }
  void set_group_by(bool g) { group_by_ = g; }
  // literal_or only: the literals, which must exist as tag values.
  const std::vector<std::string>& literals() const { return literals_; }
  // "<tagk>|<type>|<filter>", used to compare and de-duplicate filters.
  std::string Key() const;
  // Key() == other.Key(), without building either string.
  bool SameKey(const TagFilter& other) const;

 private:
  // Create() for a known type.
  static Status Build(FilterType type, std::string_view tagk, std::string_view filter,
                      bool group_by, TagFilter* out);
  // The pieces Key() concatenates; returns how many (at most 5).
  size_t KeyPieces(std::string_view* pieces) const;
  bool MatchWildcard(std::string_view v) const;

  FilterType type_ = FilterType::kLiteralOr;
  bool reported_as_wildcard_ = false;
  bool group_by_ = false;
  bool case_insensitive_ = false;
  std::string tagk_;
  std::string filter_;
  std::vector<std::string> literals_;  // literal types, lower-cased if i*
  // wildcard: OpenTSDB's decomposition
  bool match_all_ = false;
  bool has_prefix_ = false;   // pattern ended with '*': value must start with components_[0]
  bool has_postfix_ = false;  // pattern started with '*': value must end with the last component
  std::vector<std::string> components_;
  std::unique_ptr<re2::RE2> regex_;
};

// The /api/config/filters body: {"<type>":{"examples":"…","description":"…"},…}.
std::string FilterConfigJson();

}  // namespace sundial::query
