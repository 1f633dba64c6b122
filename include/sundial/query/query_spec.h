// QuerySpec: a parsed /api/query request, and its two parsers (GET
// query-string form with m=/tsuid= sub-queries, POST JSON form).
// Semantics and error texts follow opentsdb-compat.md §5.1-§5.3 and §7.
//
// Errors: InvalidArgument with OpenTSDB's `message`. When OpenTSDB also
// reports `details` (JSON errors), the message is
// "Unable to parse the given JSON" + kDetailsSeparator + details;
// SplitErrorDetails() takes it apart for the HTTP layer.
//
// Thread-safety: plain data; parsers are pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sundial/common/status.h"
#include "sundial/common/types.h"
#include "sundial/query/aggregator.h"
#include "sundial/query/tag_filter.h"
#include "sundial/query/time_util.h"
#include "sundial/query/time_zone.h"

namespace sundial::query {

enum class FillPolicy : uint8_t { kNone, kNaN, kNull, kZero, kScalar };

struct DownsampleSpec {
  bool enabled = false;
  bool all = false;          // whole-range ("0all-sum")
  bool calendar = false;     // "1dc" or useCalendar
  int64_t interval_ms = 0;   // fixed interval; nominal length for calendar
  int count = 0;             // calendar: number of units
  CalendarUnit unit = CalendarUnit::kMillis;
  const Aggregator* fn = nullptr;
  FillPolicy fill = FillPolicy::kNone;
  std::string text;          // as given, for showQuery
};

struct RateOptions {
  bool counter = false;
  int64_t counter_max = INT64_MAX;
  int64_t reset_value = 0;
  bool drop_resets = false;
};

struct SubQuery {
  const Aggregator* aggregator = nullptr;
  std::string metric;
  std::vector<std::string> tsuids;  // alternative to metric (upper-case hex)
  DownsampleSpec downsample;
  bool rate = false;
  bool has_rate_options = false;
  RateOptions rate_options;
  std::vector<TagFilter> filters;
  bool explicit_tags = false;
  int index = 0;  // position after de-duplication

  // Canonical text used to remove duplicate sub-queries.
  std::string Key() const;
};

struct QuerySpec {
  Timestamp start_ms = 0;
  Timestamp end_ms = 0;
  TimeZone tz;  // "timezone", default UTC
  std::vector<SubQuery> queries;
  bool ms_resolution = false;
  bool show_tsuids = false;
  bool show_query = false;
  bool no_annotations = false;
  bool global_annotations = false;
  bool arrays = false;
  bool use_calendar = false;
  bool show_stats = false;    // "stats" per result
  bool show_summary = false;  // trailing {"statsSummary":...} element
  // "delete": remove the matched points after answering (the server
  // decides whether that is allowed; the engine only reads).
  bool delete_data = false;
};

// Decoded query-string parameters in request order (repeated keys kept).
using ParamList = std::vector<std::pair<std::string, std::string>>;

inline constexpr char kDetailsSeparator = '\x1f';
// Splits a Status message into OpenTSDB's message and details ("" if none).
void SplitErrorDetails(const std::string& msg, std::string* message, std::string* details);

// GET form. now_ms resolves relative times. `arrays`, `ms`, ... are
// presence-only flags.
Status ParseQueryParams(const ParamList& params, Timestamp now_ms, QuerySpec* out);

// POST form (JSON body; unknown keys ignored, "tags"/"filters" last wins).
// `arrays` comes from the query string, so callers set out->arrays.
Status ParseQueryJson(std::string_view body, Timestamp now_ms, QuerySpec* out);

// Parses "<interval>-<fn>[-<fill>]". use_calendar forces calendar buckets.
Status ParseDownsample(std::string_view s, bool use_calendar, DownsampleSpec* out);

// Parses one m= sub-query ("sum:1m-avg:rate{counter}:metric{k=v}{k=v}").
Status ParseMSubQuery(std::string_view m, SubQuery* out);
// The same, parsing in place into *q, which must be default-constructed;
// on error *q is left partly filled.
Status ParseMSubQueryInto(std::string_view m, SubQuery* q);

// Parses "metric{k=v,...}{k=v,...}" into metric and filters (first braces
// group-by, second not).
Status ParseMetricAndFilters(std::string_view s, std::string* metric,
                             std::vector<TagFilter>* filters);

// Time range shared by both forms: start required, end defaults to now,
// end >= start.
Status ParseTimeRange(std::string_view start, std::string_view end, bool has_end,
                      Timestamp now_ms, QuerySpec* spec);

// Removes duplicate sub-queries (first wins) and assigns index.
void DedupSubQueries(std::vector<SubQuery>* queries);

// Query-string and JSON flag lookups.
const std::string* FindParam(const ParamList& params, std::string_view key);  // last wins
bool HasParam(const ParamList& params, std::string_view key);

}  // namespace sundial::query
