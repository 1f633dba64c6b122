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
// check; regexp is an unanchored search (ECMAScript syntax, which agrees
// with Java for common patterns).
//
// Thread-safety: immutable after Create(); Match() may be called
// concurrently.
#pragma once

#include <memory>
#include <regex>
#include <string>
#include <string_view>
#include <vector>

#include "sundial/common/status.h"

namespace sundial::query {

enum class FilterType : uint8_t {
  kLiteralOr, kILiteralOr, kNotLiteralOr, kNotILiteralOr, kWildcard, kIWildcard, kRegexp,
};

class TagFilter {
 public:
  TagFilter() = default;
  TagFilter(TagFilter&&) = default;
  TagFilter& operator=(TagFilter&&) = default;

  // Builds a filter of type `type` (a /api/config/filters name, lower-case).
  // Errors: unknown type ("Could not find a tag value filter of the type:
  // <t>"), empty tagk/filter, wildcard without '*', bad regex, regex longer
  // than 1024 bytes.
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
  std::unique_ptr<std::regex> regex_;
};

// The /api/config/filters body: {"<type>":{"examples":"…","description":"…"},…}.
std::string FilterConfigJson();

}  // namespace sundial::query
