// ImportParser: turns the bytes of a bulk import file into telnet `put`
// lines, one per point, each with the number of the line it came from.
//
// Formats (README "Import and export"):
//   kTsdb  OpenTSDB `tsdb import`: `metric timestamp value tagk=tagv ...`
//   kPut   telnet put lines:       `put metric timestamp value tagk=tagv ...`
//   kJson  /api/put points: a JSON array of point objects, or one object per
//          line (any mix of both; whitespace and commas between objects)
// kAuto picks one from the first non-blank byte of the input: '[' or '{' is
// JSON, a first token "put" is kPut, anything else kTsdb.
//
// Why put lines: every target (a running server over the telnet port, or a
// stopped server's storage through ingest::TelnetPutHandler) validates a
// put line with exactly the server's rules and texts, so an import accepts
// and rejects exactly what live ingest would. The parser checks only the
// framing: what it cannot turn into a put line becomes an error record.
//
// Text lines end in "\n" (a "\r" before it is dropped); blank lines and
// lines starting with '#' are skipped. A line or JSON object longer than
// kMaxRecordBytes is an error record and is skipped. Memory stays bounded
// by kMaxRecordBytes plus what one Feed() call hands over.
//
// Thread-safety: not thread-safe; one parser per input file.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace sundial::ingest {

enum class ImportFormat : uint8_t { kAuto, kTsdb, kPut, kJson };

// Parses "auto", "tsdb", "put" or "json". False for anything else.
bool ParseImportFormat(std::string_view name, ImportFormat* out);
const char* ImportFormatName(ImportFormat format);

inline constexpr size_t kMaxRecordBytes = 1 << 20;

// One point (put line) or one unusable record (error).
struct ImportRecord {
  uint64_t line = 0;   // 1-based line where the record starts
  bool ok = false;
  std::string put;     // ok: "put metric ts value k=v ...", no newline
  std::string error;   // !ok: why the record was skipped
};

class ImportParser {
 public:
  explicit ImportParser(ImportFormat format);
  ImportParser(const ImportParser&) = delete;
  ImportParser& operator=(const ImportParser&) = delete;

  // Appends the next bytes of the input.
  void Feed(std::string_view bytes);
  // Marks the end of the input: a last line without "\n" becomes complete.
  void Finish();
  // The next record, if one is complete. False when more input is needed
  // (or, after Finish(), when the input is exhausted).
  bool Next(ImportRecord* out);

  // The format in use: the one given, or the detected one (kAuto until a
  // non-blank byte was seen).
  ImportFormat format() const { return format_; }

 private:
  bool Detect();
  bool NextLine(ImportRecord* out);
  bool NextJson(ImportRecord* out);
  // REQUIRES: skipping_. Drops input through the next newline and ends the
  // skip; false (all buffered input dropped) when no newline is buffered.
  bool FinishSkip();
  // Drops consumed bytes from the buffer once they dominate it.
  void Compact();

  ImportFormat format_;
  std::string buf_;
  size_t pos_ = 0;         // first unconsumed byte of buf_
  uint64_t line_ = 1;      // line number at pos_
  bool finished_ = false;
  bool skipping_ = false;  // dropping the rest of an over-long record
};

// Converts one /api/put point object (JSON text) into a put line. False
// with *error set if it is not an object with a string "metric", an
// integer (or digit string) "timestamp", a number (or string) "value" and
// an object of string "tags", or a name holds whitespace.
bool JsonPointToPutLine(std::string_view object, std::string* put, std::string* error);

}  // namespace sundial::ingest
