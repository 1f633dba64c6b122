// ResultWriter: streams the /api/query JSON array (opentsdb-compat.md §5.9)
// into a ChunkSink in pieces of about kChunkBytes.
//
// Thread-safety: one query thread.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "series_source.h"
#include "sundial/query/query_engine.h"

namespace sundial::query {

// The head of one result object. Borrows every string (from the plan).
struct GroupHeader {
  const std::string* metric;
  std::vector<std::pair<std::string_view, std::string_view>> tags;  // sorted by key
  std::vector<std::string_view> aggregate_tags;                      // sorted
  std::vector<std::string_view> tsuids;  // sorted; only filled with showTSUIDs
};

class ResultWriter {
 public:
  ResultWriter(const QuerySpec& spec, ChunkSink* sink);

  // Starts one result object and its dps.
  void BeginResult(const SubQuery& q, const GroupHeader& h);
  // Adds one data point (already inside [start, end]).
  void AddPoint(Timestamp t, const Value& v);
  // Closes the current result. False if the sink went away.
  bool EndResult();
  // Closes the array and flushes. False if the sink went away.
  bool Finish();

 private:
  // Hands buf_ to the sink; unless last, buf_ is then a fresh chunk-sized
  // buffer.
  bool Flush(bool last);

  const QuerySpec& spec_;
  ChunkSink* const sink_;
  std::string buf_;
  bool first_result_ = true;
  bool first_point_ = true;
  bool null_fill_ = false;
  bool sink_ok_ = true;
};

// Appends the showQuery object of a sub-query.
void AppendSubQueryJson(const SubQuery& q, std::string* out);

}  // namespace sundial::query
