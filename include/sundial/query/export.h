// Export: streams the raw points of every series a request selects, in a
// form that imports back exactly (README "Import and export").
//
//   put   `put <metric> <ts> <value> <k=v> ...`, one point per line
//   json  `{"metric":..,"tags":{..},"timestamp":..,"value":..}` per line
//   csv   header `metric,timestamp,value,tags`, tags as `k=v;k=v`
// put and json write whole seconds as seconds and other timestamps as
// milliseconds (the put rule reads any value below 2^32 as seconds, so a
// point in the first 50 days of 1970 with milliseconds does not round-trip);
// csv always writes milliseconds. Integers are written as integers, floats
// with the shortest digits that read back to the same double, always with
// a '.' or an exponent so that they import as floats again.
//
// Order: partition by partition (time), and within one partition series by
// series (ascending id), each in time order.
//
// Why its own writer instead of /api/query with `none`: no aggregation, no
// grouping and no per-group buffers; one series iterator is open at a time
// and one partition in use, so memory does not grow with the size of the
// export or the number of partitions it spans.
//
// Thread-safety: Export() is safe to call concurrently.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "sundial/common/status.h"
#include "sundial/query/query_engine.h"
#include "sundial/query/query_spec.h"
#include "sundial/storage/storage.h"

namespace sundial::query {

enum class ExportFormat : uint8_t { kPut, kJson, kCsv };

struct ExportRequest {
  Timestamp start_ms = 0;
  Timestamp end_ms = 0;
  // m= expressions: metric and tag filters; the aggregator, downsampling
  // and rate are ignored.
  std::vector<SubQuery> queries;
  // metric= patterns: an exact name or a glob ('*' any run, '?' one byte).
  std::vector<std::string> metric_patterns;
  ExportFormat format = ExportFormat::kPut;
};

// Parses "put", "json" or "csv".
bool ParseExportFormat(std::string_view name, ExportFormat* out);

// GET form: m= (repeatable), metric= (repeatable), start (required), end,
// format (default put). InvalidArgument with a message for the client.
Status ParseExportParams(const ParamList& params, Timestamp now_ms, ExportRequest* out);

// POST form: an /api/query JSON body (start, end, queries with metric and
// tags or filters); format comes from the query string.
Status ParseExportJson(std::string_view body, Timestamp now_ms, ExportRequest* out);

// True if name matches the glob.
bool GlobMatch(std::string_view glob, std::string_view name);

// Writes the export to sink in pieces of about kChunkBytes. Limits used:
// max_series (the selected series ids are held in memory, 4 bytes each) and
// max_regex_length; the point and output limits of /api/query do not
// apply. Errors as QueryEngine::Execute (nothing written before a non-ok
// status means the caller may still send an error document). *points (may
// be null) receives the number of points written, also on error.
Status Export(storage::Storage* storage, const QueryLimits& limits, const ExportRequest& req,
              ChunkSink* sink, uint64_t* points = nullptr);

}  // namespace sundial::query
