// libFuzzer target: the /api/put JSON parser and per-point validation. A
// body is either rejected whole or split into stored and failed points.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "ingest/fake_storage.h"
#include "sundial/ingest/http_put_handler.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace sundial::ingest;
  FakeStorage storage;
  IngestOptions options;
  const PointRules rules(options);
  IngestStats stats;
  HttpPutHandler handler(&storage, &options, &rules, &stats);
  HttpPutOutcome out;
  handler.Handle(std::string_view(reinterpret_cast<const char*>(data), size), true, &out);
  if (!out.request_error && out.success + out.failed != out.points) __builtin_trap();
  if (storage.appended.size() != out.success) __builtin_trap();
  return 0;
}
