// libFuzzer target: the InfluxDB line-protocol parser and handler. The
// input is a /write body: it goes through LineProtocolHandler against an
// in-memory storage, and every line also through the parser alone. Nothing
// may crash; the counts must add up; every view the parser returns must lie
// inside the line; every stored point must come from a good line.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ingest/fake_storage.h"
#include "sundial/ingest/line_protocol_handler.h"
#include "sundial/ingest/line_protocol_parser.h"

namespace {

using namespace sundial::ingest;

bool Inside(std::string_view part, std::string_view whole) {
  return part.data() >= whole.data() && part.data() + part.size() <= whole.data() + whole.size();
}

void CheckParser(std::string_view line) {
  LineProtocolParser parser;
  const char* error = nullptr;
  if (!parser.Parse(line, &error)) {
    if (error == nullptr) __builtin_trap();
    return;
  }
  if (!Inside(parser.series(), line) || !Inside(parser.measurement(), line)) __builtin_trap();
  if (parser.fields().empty()) __builtin_trap();
  for (const LineField& f : parser.fields()) {
    if (f.key.empty() || !Inside(f.key, line)) __builtin_trap();
    if (f.type == LineFieldType::kString && !Inside(f.text, line)) __builtin_trap();
  }
  std::string measurement;
  std::vector<sundial::storage::TagRef> tags;
  if (parser.DecodeSeries(&measurement, &tags, &error)) {
    if (measurement.empty()) __builtin_trap();
    for (const auto& t : tags) {
      if (t.key.empty() || t.value.empty()) __builtin_trap();
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  FakeStorage storage;
  IngestOptions options;
  options.max_batch_points = 4;
  options.series_cache_entries = 4;
  const PointRules rules(options);
  IngestStats stats;
  LineProtocolHandler handler(&storage, &options, &rules, &stats);
  LineProtocolOutcome out;
  handler.HandleBody(input, Precision::kNanosecond, 0, &out);
  if (!out.storage_status.ok()) __builtin_trap();
  if (out.bad_lines > out.lines || out.points != storage.appended.size()) __builtin_trap();
  if ((out.bad_lines == 0) != out.first_error.empty()) __builtin_trap();
  size_t pos = 0;
  while (pos < input.size()) {
    const size_t end = FindLineEnd(input, pos);
    if (end < pos || end > input.size()) __builtin_trap();
    const std::string_view line = input.substr(pos, end - pos);
    if (!IsBlankOrComment(line)) CheckParser(line);
    (void)LooksLikeLineProtocol(line);
    pos = end + 1;
  }
  return 0;
}
