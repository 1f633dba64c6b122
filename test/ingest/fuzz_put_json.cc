// libFuzzer target: the /api/put JSON parser and per-point validation. A
// body is either rejected whole or split into stored and failed points.
// Also differential: the single-pass scanner (default) and the general
// parser alone must agree on every body.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "ingest/fake_storage.h"
#include "sundial/ingest/http_put_handler.h"
#include "sundial/ingest/put_json_parser.h"

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

  const std::string_view body(reinterpret_cast<const char*>(data), size);
  PutJsonParser fast;
  PutJsonParser general(/*common_shape_fast=*/false);
  std::string m1, d1, m2, d2;
  const bool ok1 = fast.Parse(body, &m1, &d1);
  const bool ok2 = general.Parse(body, &m2, &d2);
  if (ok1 != ok2 || m1 != m2 || d1 != d2) __builtin_trap();
  if (fast.points().size() != general.points().size()) __builtin_trap();
  for (size_t i = 0; i < fast.points().size(); ++i) {
    const JsonPutPoint& a = fast.points()[i];
    const JsonPutPoint& b = general.points()[i];
    if (a.is_null != b.is_null || a.has_metric != b.has_metric || a.has_value != b.has_value ||
        a.has_tags != b.has_tags || a.timestamp != b.timestamp || a.metric != b.metric ||
        a.value != b.value || a.tags_raw != b.tags_raw || a.tags_count != b.tags_count) {
      __builtin_trap();
    }
    for (uint32_t k = 0; k < a.tags_count; ++k) {
      const sundial::storage::TagRef& x = fast.tags()[a.tags_begin + k];
      const sundial::storage::TagRef& y = general.tags()[b.tags_begin + k];
      if (x.key != y.key || x.value != y.value ||
          (x.value.data() == nullptr) != (y.value.data() == nullptr)) {
        __builtin_trap();
      }
    }
  }
  return 0;
}
