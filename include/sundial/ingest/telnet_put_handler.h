// TelnetPutHandler: the `put` command of the telnet-style line protocol for
// one connection (opentsdb-compat.md §2.1-2.6).
//
//   put <metric> <timestamp> <value> <tagk=tagv> [<tagk=tagv> ...]
//
// Tokens are separated by single spaces; empty tokens among the tags are
// ignored (tcollector sends double spaces). Success produces no reply; a
// rejected point produces one line, OpenTSDB's exact text, for example
//   put: illegal argument: Need at least one tag (metric=m, tags={})\n
//   put: invalid value: Invalid character 'x' in 12x\n
// Timestamps are seconds, or milliseconds when they do not fit in 32 bits;
// a dotted timestamp has its dots removed first (1356998400.123 -> ms).
//
// Why batches: the caller hands over every complete line of a read buffer
// and then calls Flush() once, so storage takes one Append (one WAL record)
// per read instead of one per point, and the lines are parsed in place with
// no allocation per line. Lines must be flushed before the connection reads
// again: that is the telnet acknowledgement of the durability contract.
//
// Thread-safety: not thread-safe; one per connection. Storage, options and
// stats are borrowed and must outlive it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "sundial/ingest/ingest_options.h"
#include "sundial/ingest/ingest_stats.h"
#include "sundial/ingest/point_rules.h"
#include "sundial/ingest/point_writer.h"
#include "sundial/storage/storage.h"

namespace sundial::ingest {

class TelnetPutHandler {
 public:
  TelnetPutHandler(storage::Storage* storage, const IngestOptions* options,
                   const PointRules* rules, IngestStats* stats);
  TelnetPutHandler(const TelnetPutHandler&) = delete;
  TelnetPutHandler& operator=(const TelnetPutHandler&) = delete;
  ~TelnetPutHandler();

  // Parses one line whose first token is "put" (without its "\n"; a final
  // "\r" is ignored). A good point is buffered; a bad one appends its error
  // line to *reply. May flush by itself when the buffer is full.
  void HandlePut(std::string_view line, std::string* reply);

  // Handles the run of put lines at the start of `lines` (complete lines,
  // each ending in '\n'), up to the first line whose command is not "put",
  // as HandlePut does, and returns the bytes consumed. Does not flush.
  size_t HandlePutLines(std::string_view lines, std::string* reply);

  // Appends the buffered points to storage (one Append). If storage fails,
  // every buffered point is reported on *reply as
  // "put: HBase error: <status>\n" and counted as a storage error.
  // Returns storage's status.
  Status Flush(std::string* reply);

  // Points buffered and not yet flushed.
  size_t pending() const { return writer_.pending(); }

 private:
  // Splits the tag tokens into tags_ (rows 6 and 7). Returns false with
  // *error set on a bad or duplicate tag.
  bool ParseTags(std::string_view text, PutError* error);
  void Reject(const PutError& error, std::string* reply);
  void PublishStats();

  const PointRules* const rules_;
  IngestStats* const stats_;
  PointWriter writer_;
  std::vector<storage::TagRef> tags_;  // scratch, views into the current line
  PutError error_;                     // scratch, reused
  std::string scratch_;                // dotted timestamps
  uint64_t lines_ = 0;                 // published to stats_ on Flush
};

// True if the line's command (its first space-separated token) is exactly
// "put". `line` may be followed by more lines.
inline bool IsPutCommand(std::string_view line) {
  return line.size() >= 3 && line[0] == 'p' && line[1] == 'u' && line[2] == 't' &&
         (line.size() == 3 || line[3] == ' ' || line[3] == '\n' || line[3] == '\r');
}

// Formats a rejected point as the telnet protocol reports it, e.g.
// "put: illegal argument: empty value\n".
void AppendTelnetError(const PutError& error, std::string* reply);

}  // namespace sundial::ingest
