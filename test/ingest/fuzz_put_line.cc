// libFuzzer target: the telnet put-line parser. Every input line goes
// through TelnetPutHandler against an in-memory storage; the reply must be
// one line per rejected point and nothing may crash. The number fast paths
// must agree bit for bit with the full parsers on every line.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "ingest/fake_storage.h"
#include "ingest/fast_number.h"
#include "sundial/ingest/telnet_put_handler.h"

namespace {

using namespace sundial::ingest;

// Whenever a fast path answers, the full parser gives the same result.
void CheckFastPaths(std::string_view token) {
  std::string error;
  int64_t fast_long = 0, full_long = 0;
  if (FastParseDigits(token, &fast_long) &&
      (!ParseJavaLong(token, &full_long, &error) || fast_long != full_long)) {
    __builtin_trap();
  }
  ParsedValue fast, full;
  if (FastParseValue(token, &fast) &&
      (!ParseValue(token, &full, &error) || !fast.value.BitEquals(full.value) ||
       fast.fits_float32 != full.fits_float32)) {
    __builtin_trap();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FakeStorage storage;
  IngestOptions options;
  options.max_batch_points = 4;
  options.series_cache_entries = 4;
  const PointRules rules(options);
  IngestStats stats;
  TelnetPutHandler handler(&storage, &options, &rules, &stats);
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  std::string reply;
  size_t pos = 0;
  while (pos <= input.size()) {
    size_t nl = input.find('\n', pos);
    if (nl == std::string_view::npos) nl = input.size();
    CheckFastPaths(input.substr(pos, nl - pos));
    std::string line = "put ";
    line.append(input.substr(pos, nl - pos));
    handler.HandlePut(line, &reply);
    pos = nl + 1;
  }
  (void)handler.Flush(&reply);
  if (!reply.empty() && reply.back() != '\n') __builtin_trap();
  // The bulk path on the raw input: it must stop at a line boundary.
  const size_t used = handler.HandlePutLines(input, &reply);
  if (used > input.size()) __builtin_trap();
  if (used > 0 && used < input.size() && input[used - 1] != '\n') __builtin_trap();
  (void)handler.Flush(&reply);
  return 0;
}
