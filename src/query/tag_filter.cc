#include "sundial/query/tag_filter.h"

#include <re2/re2.h>

#include <algorithm>

#include "sundial/common/ascii.h"
#include "sundial/query/json_format.h"

namespace sundial::query {
namespace {

struct TypeInfo {
  std::string_view name;
  FilterType type;
  std::string_view examples;
  std::string_view description;
};

constexpr TypeInfo kTypes[] = {
    {"iliteral_or", FilterType::kILiteralOr,
     "host=iliteral_or(web01),  host=iliteral_or(web01|web02|web03)  "
     "{\"type\":\"iliteral_or\",\"tagk\":\"host\",\"filter\":\"web01|web02|web03\",\"groupBy\":false}",
     "Accepts one or more exact values and matches if the series contains any of them. Multiple "
     "values can be included and must be separated by the | (pipe) character. The filter is case "
     "insensitive and will not allow characters that TSDB does not allow at write time."},
    {"iwildcard", FilterType::kIWildcard,
     "host=iwildcard(web*),  host=iwildcard(web*.tsdb.net)  "
     "{\"type\":\"iwildcard\",\"tagk\":\"host\",\"filter\":\"web*.tsdb.net\",\"groupBy\":false}",
     "Performs pre, post and in-fix glob matching of values. The globs are case insensitive and "
     "multiple wildcards can be used. The wildcard character is the * (asterisk). Case "
     "insensitive matching is performed on the value."},
    {"literal_or", FilterType::kLiteralOr,
     "host=literal_or(web01),  host=literal_or(web01|web02|web03)  "
     "{\"type\":\"literal_or\",\"tagk\":\"host\",\"filter\":\"web01|web02|web03\",\"groupBy\":false}",
     "Accepts one or more exact values and matches if the series contains any of them. Multiple "
     "values can be included and must be separated by the | (pipe) character. The filter is case "
     "sensitive and will not allow characters that TSDB does not allow at write time."},
    {"not_iliteral_or", FilterType::kNotILiteralOr,
     "host=not_iliteral_or(web01),  host=not_iliteral_or(web01|web02|web03)  "
     "{\"type\":\"not_iliteral_or\",\"tagk\":\"host\",\"filter\":\"web01|web02|web03\",\"groupBy\":false}",
     "Accepts one or more exact values and matches if the series does NOT contain any of them. "
     "Multiple values can be included and must be separated by the | (pipe) character. The "
     "filter is case insensitive and will not allow characters that TSDB does not allow at "
     "write time."},
    {"not_literal_or", FilterType::kNotLiteralOr,
     "host=not_literal_or(web01),  host=not_literal_or(web01|web02|web03)  "
     "{\"type\":\"not_literal_or\",\"tagk\":\"host\",\"filter\":\"web01|web02|web03\",\"groupBy\":false}",
     "Accepts one or more exact values and matches if the series does NOT contain any of them. "
     "Multiple values can be included and must be separated by the | (pipe) character. The "
     "filter is case sensitive and will not allow characters that TSDB does not allow at write "
     "time."},
    {"regexp", FilterType::kRegexp,
     "host=regexp(.*)  {\"type\":\"regexp\",\"tagk\":\"host\",\"filter\":\".*\",\"groupBy\":false}",
     "Provides full, POSIX compliant regular expression using the built in Java Pattern class. "
     "Note that an expression containing curly braces {} will not parse properly in URLs. If the "
     "pattern is not a valid regular expression then an exception will be raised."},
    {"wildcard", FilterType::kWildcard,
     "host=wildcard(web*),  host=wildcard(web*.tsdb.net)  "
     "{\"type\":\"wildcard\",\"tagk\":\"host\",\"filter\":\"web*.tsdb.net\",\"groupBy\":false}",
     "Performs pre, post and in-fix glob matching of values. The globs are case sensitive and "
     "multiple wildcards can be used. The wildcard character is the * (asterisk). At least one "
     "wildcard must be present in the filter value. A wildcard by itself can be used as well to "
     "match on any value for the tag key."},
};

std::vector<std::string> Split(std::string_view s, char sep) {
  std::vector<std::string> out;
  out.reserve(static_cast<size_t>(std::count(s.begin(), s.end(), sep)) + 1);
  size_t start = 0;
  for (size_t i = 0; i <= s.size(); ++i) {
    if (i == s.size() || s[i] == sep) {
      out.emplace_back(s.substr(start, i - start));
      start = i + 1;
    }
  }
  return out;
}

Status BuildWildcard(std::string_view filter, bool ci, bool* has_prefix, bool* has_postfix,
                     std::vector<std::string>* comps) {
  std::string actual = ci ? AsciiLower(filter) : std::string(filter);
  if (actual.find('*') == std::string::npos) {
    return Status::InvalidArgument("Filter must contain an asterisk");
  }
  *has_postfix = actual[0] == '*';
  if (*has_postfix) {
    while (actual[0] == '*' && actual.size() >= 2) actual.erase(0, 1);
  }
  *has_prefix = actual.back() == '*';
  if (*has_prefix) {
    while (actual.back() == '*' && actual.size() >= 2) actual.pop_back();
  }
  const size_t star = actual.find('*');
  if (star != std::string::npos && star > 0) {
    *comps = Split(actual, '*');
  } else {
    comps->assign(1, std::move(actual));
  }
  return Status::OK();
}

// Compiles a regexp filter with RE2 under the length and memory bounds.
Status CompileRegex(const std::string& pattern, std::unique_ptr<re2::RE2>* out) {
  if (pattern.size() > kMaxRegexLength) {
    return Status::InvalidArgument("Regular expression is too long: " +
                                   std::to_string(pattern.size()) + " bytes, the limit is " +
                                   std::to_string(kMaxRegexLength));
  }
  re2::RE2::Options opts;
  opts.set_log_errors(false);
  opts.set_max_mem(kRegexMaxMem);
  auto re = std::make_unique<re2::RE2>(pattern, opts);
  if (!re->ok()) {
    // RE2 error text can quote the whole pattern; keep the message short.
    std::string shown = pattern.substr(0, 256);
    if (shown.size() < pattern.size()) shown += "...";
    return Status::InvalidArgument("Invalid regular expression: " + shown + ": " +
                                   re->error().substr(0, 256));
  }
  *out = std::move(re);
  return Status::OK();
}

}  // namespace

TagFilter::TagFilter() = default;
TagFilter::~TagFilter() = default;
TagFilter::TagFilter(TagFilter&&) noexcept = default;
TagFilter& TagFilter::operator=(TagFilter&&) noexcept = default;

Status TagFilter::Create(std::string_view type, std::string_view tagk, std::string_view filter,
                         bool group_by, TagFilter* out) {
  const TypeInfo* info = nullptr;
  for (const TypeInfo& t : kTypes) {
    if (t.name == type) info = &t;
  }
  if (info == nullptr) {
    return Status::InvalidArgument("Could not find a tag value filter of the type: " +
                                   std::string(type));
  }
  return Build(info->type, tagk, filter, group_by, out);
}

Status TagFilter::Build(FilterType type, std::string_view tagk, std::string_view filter,
                        bool group_by, TagFilter* out) {
  if (tagk.empty()) return Status::InvalidArgument("Tagk cannot be null or empty");
  if (filter.empty()) return Status::InvalidArgument("Filter cannot be null or empty");
  TagFilter f;
  f.type_ = type;
  f.tagk_.assign(tagk);
  f.filter_.assign(filter);
  f.group_by_ = group_by;
  switch (type) {
    case FilterType::kLiteralOr:
    case FilterType::kNotLiteralOr:
      f.literals_ = Split(filter, '|');
      break;
    case FilterType::kILiteralOr:
    case FilterType::kNotILiteralOr:
      f.case_insensitive_ = true;
      f.literals_ = Split(AsciiLower(filter), '|');
      break;
    case FilterType::kWildcard:
    case FilterType::kIWildcard: {
      f.case_insensitive_ = type == FilterType::kIWildcard;
      SUNDIAL_RETURN_IF_ERROR(BuildWildcard(filter, f.case_insensitive_, &f.has_prefix_,
                                            &f.has_postfix_, &f.components_));
      f.match_all_ = f.components_.size() == 1 && f.components_[0] == "*";
      break;
    }
    case FilterType::kRegexp: {
      SUNDIAL_RETURN_IF_ERROR(CompileRegex(f.filter_, &f.regex_));
      break;
    }
  }
  *out = std::move(f);
  return Status::OK();
}

Status TagFilter::FromShorthand(std::string_view tagk, std::string_view value, bool group_by,
                                TagFilter* out) {
  if (tagk.empty()) return Status::InvalidArgument("Tagk cannot be null or empty");
  if (value.empty()) return Status::InvalidArgument("Filter cannot be null or empty");
  if (value == "*") {
    SUNDIAL_RETURN_IF_ERROR(Build(FilterType::kIWildcard, tagk, "*", group_by, out));
    out->reported_as_wildcard_ = true;
    return Status::OK();
  }
  const size_t paren = value.find('(');
  if (paren != std::string_view::npos) {
    if (value.back() != ')') {
      return Status::InvalidArgument("Filter must end with a ')': " + std::string(value));
    }
    const std::string_view type = value.substr(0, paren);
    const std::string_view filter = value.substr(paren + 1, value.size() - paren - 2);
    char lower[16];  // longer than every type name: lower-cased on the heap for the error
    if (type.size() > sizeof(lower)) return Create(AsciiLower(type), tagk, filter, group_by, out);
    for (size_t i = 0; i < type.size(); ++i) lower[i] = AsciiLower(type[i]);
    return Create(std::string_view(lower, type.size()), tagk, filter, group_by, out);
  }
  if (value.find('*') != std::string_view::npos) {
    SUNDIAL_RETURN_IF_ERROR(Build(FilterType::kIWildcard, tagk, value, group_by, out));
    out->reported_as_wildcard_ = true;
    return Status::OK();
  }
  return Build(FilterType::kLiteralOr, tagk, value, group_by, out);
}

bool TagFilter::MatchWildcard(std::string_view v) const {
  if (match_all_) return true;
  std::string lowered;
  if (case_insensitive_) {
    lowered = AsciiLower(v);
    v = lowered;
  }
  const std::string& last = components_.back();
  if (has_postfix_ && !has_prefix_ &&
      (v.size() < last.size() || v.substr(v.size() - last.size()) != last)) {
    return false;
  }
  const std::string& first = components_.front();
  if (has_prefix_ && !has_postfix_ && v.substr(0, first.size()) != first) return false;
  size_t idx = 0;
  for (const std::string& c : components_) {
    if (v.find(c, std::min(idx, v.size())) == std::string_view::npos) {
      // Java indexOf(str, from) with from > length finds "" at length.
      if (!(c.empty() && idx >= v.size())) return false;
    }
    idx += c.size();
  }
  return true;
}

bool TagFilter::Match(std::string_view value) const {
  switch (type_) {
    case FilterType::kLiteralOr:
      return std::find(literals_.begin(), literals_.end(), value) != literals_.end();
    case FilterType::kNotLiteralOr:
      return std::find(literals_.begin(), literals_.end(), value) == literals_.end();
    case FilterType::kILiteralOr:
      return std::find(literals_.begin(), literals_.end(), AsciiLower(value)) != literals_.end();
    case FilterType::kNotILiteralOr:
      return std::find(literals_.begin(), literals_.end(), AsciiLower(value)) == literals_.end();
    case FilterType::kWildcard:
    case FilterType::kIWildcard:
      return MatchWildcard(value);
    case FilterType::kRegexp:
      return re2::RE2::PartialMatch(re2::StringPiece(value.data(), value.size()), *regex_);
  }
  return false;
}

std::string_view TagFilter::type_name() const {
  if (reported_as_wildcard_) return "wildcard";
  for (const TypeInfo& t : kTypes) {
    if (t.type == type_) return t.name;
  }
  return "literal_or";
}

std::string TagFilter::Key() const {
  std::string_view pieces[5];
  const size_t n = KeyPieces(pieces);
  size_t size = 0;
  for (size_t i = 0; i < n; ++i) size += pieces[i].size();
  std::string key;
  key.reserve(size);
  for (size_t i = 0; i < n; ++i) key.append(pieces[i]);
  return key;
}

size_t TagFilter::KeyPieces(std::string_view* pieces) const {
  size_t n = 0;
  pieces[n++] = tagk_;
  pieces[n++] = "|";
  pieces[n++] = type_name();
  pieces[n++] = case_insensitive_ ? "i|" : "|";
  pieces[n++] = filter_;
  return n;
}

bool TagFilter::SameKey(const TagFilter& other) const {
  std::string_view a[5], b[5];
  const size_t na = KeyPieces(a);
  const size_t nb = other.KeyPieces(b);
  size_t size_a = 0, size_b = 0;
  for (size_t i = 0; i < na; ++i) size_a += a[i].size();
  for (size_t i = 0; i < nb; ++i) size_b += b[i].size();
  if (size_a != size_b) return false;
  // Walk both piece lists as one string each.
  size_t i = 0, j = 0;
  std::string_view pa = a[0], pb = b[0];
  while (true) {
    while (pa.empty() && ++i < na) pa = a[i];
    while (pb.empty() && ++j < nb) pb = b[j];
    if (pa.empty() || pb.empty()) return pa.empty() && pb.empty();
    const size_t len = std::min(pa.size(), pb.size());
    if (pa.substr(0, len) != pb.substr(0, len)) return false;
    pa.remove_prefix(len);
    pb.remove_prefix(len);
  }
}

std::string FilterConfigJson() {
  std::string out = "{";
  bool first = true;
  for (const TypeInfo& t : kTypes) {
    if (!first) out.push_back(',');
    first = false;
    AppendJsonString(t.name, &out);
    out.append(":{\"examples\":");
    AppendJsonString(t.examples, &out);
    out.append(",\"description\":");
    AppendJsonString(t.description, &out);
    out.push_back('}');
  }
  out.push_back('}');
  return out;
}

}  // namespace sundial::query
