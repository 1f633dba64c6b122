// QueryEngine: runs /api/query, /api/query/last, /api/suggest and
// /api/search/lookup against Storage, and writes OpenTSDB-shaped JSON.
//
// Why one engine object: it owns the limits (series, points, deadline)
// from Options and borrows the Storage; server/ creates one and calls it
// from its query worker threads. Query results are streamed: the body is
// handed to a ChunkSink in pieces of about kChunkBytes, never built whole.
//
// Error contract: a non-ok Status returned before the first Write() means
// nothing was sent and the caller answers with an error document (see
// SplitErrorDetails). After the first Write(), an error means the body is
// incomplete; the caller must abort the response.
// Codes: InvalidArgument -> 400, NotFound -> 404 (lookup), ResourceExhausted
// -> 413 (limits), DeadlineExceeded -> 400 (deadline), others -> 500.
//
// Thread-safety: all methods are const and safe to call concurrently.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "sundial/common/executor.h"
#include "sundial/common/status.h"
#include "sundial/query/annotations.h"
#include "sundial/query/bucket_cache.h"
#include "sundial/query/query_spec.h"
#include "sundial/query/result_collector.h"
#include "sundial/rollup/rollup_store.h"
#include "sundial/storage/storage.h"

namespace sundial::query {

// Limits of one /api/query request; 0 means no limit for each. Over a
// limit the request fails with ResourceExhausted (413), over the deadline
// with DeadlineExceeded (400), and a too long regexp is InvalidArgument.
struct QueryLimits {
  uint64_t max_series = 0;         // series selected over all sub-queries
  uint64_t max_points = 0;         // raw points read
  int64_t deadline_ms = 0;         // wall time, checked in every long loop
  // Points in the result ("dps" entries over all results). Checked before
  // anything is read when the downsample fill policy makes the count
  // known (buckets = range / interval per group), and while running.
  uint64_t max_output_points = 0;
  // Bytes of the JSON result, estimated up front from the known point
  // count and counted while streaming.
  uint64_t max_output_bytes = 0;
  // Memory held by the series pipelines of one group and by the values
  // of one bucket (for the aggregators that need every value).
  uint64_t max_memory = 0;
  size_t max_regex_length = 0;     // bytes of one regexp filter pattern
};

// Receives a response body piece by piece.
class ChunkSink {
 public:
  virtual ~ChunkSink() = default;
  // Takes the next piece. Returns false if the receiver is gone; the
  // engine then stops early with Status::Unavailable.
  virtual bool Write(std::string&& chunk) = 0;
};

inline constexpr size_t kChunkBytes = 64 * 1024;

// What makes a query "small" enough for ExecuteSmall(): a few series and
// few raw points, so that it finishes in well under a millisecond.
struct SmallQueryBound {
  uint64_t max_series = 0;  // series selected over all sub-queries
  uint64_t max_points = 0;  // raw points read, and points in the result
  int64_t max_us = 0;       // wall time (0 = only the query's deadline)
};

// /api/query/last request.
struct LastQuery {
  std::string metric;                                       // with tags below
  std::vector<std::pair<std::string, std::string>> tags;    // subset match
  std::vector<std::string> tsuids;
};
struct LastRequest {
  std::vector<LastQuery> queries;
  bool resolve = false;
  int64_t back_scan_hours = 0;  // 0 = no limit
};
Status ParseLastParams(const ParamList& params, LastRequest* out);
Status ParseLastJson(std::string_view body, LastRequest* out);

// /api/search/lookup request.
struct LookupRequest {
  std::string metric;  // "" or "*" = any
  std::vector<std::pair<std::string, std::string>> tags;  // "*" = any
  int64_t limit = 25;  // <= 0 = unlimited
};
Status ParseLookupParams(const ParamList& params, LookupRequest* out);
Status ParseLookupJson(std::string_view body, LookupRequest* out);

// Where a query may run its groups at once (QueryEngine's constructor):
// on the calling thread and on up to `helpers` jobs posted to executor.
struct QueryLanes {
  Executor* executor = nullptr;  // borrowed; null: the calling thread only
  size_t helpers = 0;
};

class QueryEngine {
 public:
  // rollups (borrowed, may be null) answers whole-hour downsampling when
  // it can (rollup_source.h); cache (borrowed, may be null) keeps and
  // reuses fixed-interval buckets (bucket_cache.h). Results are the same
  // either way. cache must be the storage's late-point observer (directly or
  // among others), or it could serve buckets that late points changed.
  // annotations (borrowed, may be null) adds "annotations" and
  // "globalAnnotations" to /api/query results. lanes: Execute() runs the
  // groups of a sub-query on them at once when each group is a few series
  // downsampled to few points (the result is the same).
  QueryEngine(storage::Storage* storage, const QueryLimits& limits,
              const rollup::RollupStore* rollups = nullptr, BucketCache* cache = nullptr,
              const AnnotationStore* annotations = nullptr, const QueryLanes& lanes = {});
  QueryEngine(const QueryEngine&) = delete;
  QueryEngine& operator=(const QueryEngine&) = delete;

  // Runs a parsed /api/query request and streams the JSON array to sink.
  // *points (may be null) receives the number of data points written to
  // the body ("dps" entries), also on error (what was sent before it).
  Status Execute(const QuerySpec& spec, ChunkSink* sink, uint64_t* points = nullptr) const;

  // Runs spec only if it stays within bound; then the whole JSON array is
  // in *json and the result is as Execute's (errors included). A query that
  // selects more series, reads or writes more points or runs longer than
  // bound gives
  // Status::Busy, having done at most bound's worth of work; the caller
  // then runs it with Execute (on a thread that may take long).
  // Lets a server answer tiny queries on the thread that read them.
  // *points (may be null) is as for Execute, and 0 unless the result is ok.
  Status ExecuteSmall(const QuerySpec& spec, const SmallQueryBound& bound, std::string* json,
                      uint64_t* points = nullptr) const;

  // What a Collect() run used, for callers that share limits across runs.
  struct CollectStats {
    uint64_t series = 0;      // series selected
    uint64_t raw_points = 0;  // raw points read
  };
  // Runs spec like Execute, under `limits` instead of limits(), and hands
  // every result to out as data. The collected points count against
  // limits.max_memory (16 bytes each) as well as max_output_points. For
  // callers that compute on several queries' results within one budget;
  // *stats (may be null) receives what the run used, also on error.
  Status Collect(const QuerySpec& spec, const QueryLimits& limits, ResultCollector* out,
                 CollectStats* stats = nullptr) const;

  // The series every sub-query of spec selects (names resolved and filters
  // applied as Execute does), ascending, each once: what a delete removes.
  Status MatchSeries(const QuerySpec& spec, std::vector<SeriesId>* ids) const;
  // /api/query/last. now_ms bounds back_scan. *points (may be null)
  // receives the number of points in the answer (0 on error).
  Status Last(const LastRequest& req, Timestamp now_ms, std::string* json,
              uint64_t* points = nullptr) const;

  // /api/suggest. type: metrics|tagk|tagv; max <= 0 means 25.
  Status Suggest(std::string_view type, std::string_view q, int64_t max,
                 std::string* json) const;

  // /api/search/lookup. elapsed time is reported in "time".
  Status Lookup(const LookupRequest& req, std::string* json) const;

  // /api/aggregators body (sorted names).
  static std::string AggregatorsJson();

  const QueryLimits& limits() const { return limits_; }

 private:
  Status Run(const QuerySpec& spec, const SmallQueryBound* bound, ChunkSink* sink,
             uint64_t* points) const;

  storage::Storage* const storage_;
  const QueryLimits limits_;
  const rollup::RollupStore* const rollups_;
  BucketCache* const cache_;
  const AnnotationStore* const annotations_;
  const QueryLanes lanes_;
};

// Upper-case hex TSUID of a series key (3-byte UIDs, tag pairs sorted by
// tagk uid).
std::string TsuidOf(const storage::SeriesKey& key);
std::string TsuidOf(const storage::SeriesKeyRef& key);
// One UID as a TSUID prints it: 3 bytes of upper-case hex (4 when needed).
std::string UidHex(uint32_t uid);

// OpenTSDB's NoSuchUniqueName as a 400: InvalidArgument "No such name for
// '<kind>': '<name>'" (kind: metrics, tagk or tagv).
Status NoSuchName(std::string_view kind, std::string_view name);

}  // namespace sundial::query
