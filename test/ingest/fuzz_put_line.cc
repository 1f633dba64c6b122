// libFuzzer target: the telnet put-line parser. Every input line goes
// through TelnetPutHandler against an in-memory storage; the reply must be
// one line per rejected point and nothing may crash.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "ingest/fake_storage.h"
#include "sundial/ingest/telnet_put_handler.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace sundial::ingest;
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
