// ResultWriter: streams the /api/query JSON array (opentsdb-compat.md §5.9)
// into a ChunkSink in pieces of about kChunkBytes.
//
// Thread-safety: one query thread.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "series_source.h"
#include "sundial/query/json_format.h"
#include "sundial/query/query_engine.h"

namespace sundial::query {

// The head of one result object. Borrows every string (from the plan).
struct GroupHeader {
  const std::string* metric;
  std::vector<std::pair<std::string_view, std::string_view>> tags;  // sorted by key
  std::vector<std::string_view> aggregate_tags;                      // sorted
  std::vector<std::string_view> tsuids;  // sorted; only filled with showTSUIDs
  // Comma-separated annotation objects; empty: the field is left out.
  std::string annotations;
  const std::string* global_annotations = nullptr;  // the same, may be null
};

// Figures of one result (showStats) or of the whole query (showSummary).
struct ResultStats {
  int query_index = 0;     // per result only
  uint64_t series = 0;     // series read
  uint64_t raw_points = 0; // raw points read
  uint64_t emitted = 0;    // points written to "dps"
  double time_ms = 0;      // wall time spent
};

class ResultWriter {
 public:
  ResultWriter(const QuerySpec& spec, ChunkSink* sink);

  // Starts one result object and its dps.
  void BeginResult(const SubQuery& q, const GroupHeader& h);
  // Adds one data point (already inside [start, end]).
  void AddPoint(Timestamp t, const Value& v);
  // The same for a double v whose text (AppendJavaDouble's) is known.
  // REQUIRES: v is not NaN (its text depends on the fill policy).
  void AddPointText(Timestamp t, std::string_view value_text);
  // Closes the current result, adding "stats" with showStats. False if
  // the sink went away.
  bool EndResult(const ResultStats& stats);
  // Closes the array, adding the statsSummary element with showSummary,
  // and flushes. False if the sink went away.
  bool Finish(const ResultStats& summary);
  // Points written by AddPoint in the current result.
  uint64_t emitted() const { return emitted_; }

 private:
  // Hands buf_ to the sink; unless last, buf_ is then a fresh chunk-sized
  // buffer.
  bool Flush(bool last);
  // Moves the points laid out in stage_ to buf_. Everything but AddPoint
  // writes to buf_, so it calls this first.
  void Unstage();
  // Stages what precedes a point's value: separator and timestamp. Returns
  // where the value goes.
  char* BeginPoint(Timestamp t);
  // Stages what follows the value written up to p.
  void EndPoint(char* p);
  // WriteInt(ts), from the previous timestamp's text when ts is a little
  // later (points come in time order). Writes kIntMax bytes at out, of
  // which the returned end tells how many count.
  char* WriteTimestamp(int64_t ts, char* out);

  const QuerySpec& spec_;
  ChunkSink* const sink_;
  std::string buf_;
  // AddPoint's output not yet in buf_; one append per many points.
  static constexpr size_t kMaxStagedPoint = 5 + 2 * kIntMax;  // ,"ts":v or ,[ts,v]
  char stage_[2048];
  size_t staged_ = 0;
  // The last timestamp written and its text (ts_len_ digits; 0: none yet).
  static constexpr int64_t kMaxTsStep = 1000000000;
  int64_t ts_last_ = 0;
  int ts_len_ = 0;
  char ts_text_[kIntMax] = {};
  bool first_result_ = true;
  bool first_point_ = true;
  bool null_fill_ = false;
  uint64_t emitted_ = 0;
  bool sink_ok_ = true;
};

// A result kept to be written later: ResultWriter's result interface,
// recording. A query that runs groups at once records each (on its own
// thread) and replays them into its ResultWriter in output order.
//
// Thread-safety: one thread at a time.
class RecordedResult {
 public:
  void BeginResult(const SubQuery& q, const GroupHeader& h) {
    q_ = &q;
    header_ = h;
  }
  void AddPoint(Timestamp t, const Value& v) { points_.push_back({t, v, 0, 0}); }
  void AddPointText(Timestamp t, std::string_view text) {
    points_.push_back({t, Value(), texts_.size(), text.size()});
    texts_.append(text);
  }
  bool EndResult(const ResultStats& stats) {
    stats_ = stats;
    return true;
  }
  uint64_t emitted() const { return points_.size(); }

  // Writes the recorded result (if one was begun) to w; false if w's sink
  // went away.
  bool Replay(ResultWriter* w) const;

 private:
  struct Recorded {
    Timestamp t;
    Value v;
    size_t text_at;   // the value's text in texts_,
    size_t text_len;  //   if it came as text (else 0)
  };
  const SubQuery* q_ = nullptr;  // null: no result
  GroupHeader header_;
  std::vector<Recorded> points_;
  std::string texts_;
  ResultStats stats_;
};

// Appends the showQuery object of a sub-query.
void AppendSubQueryJson(const SubQuery& q, std::string* out);

}  // namespace sundial::query
