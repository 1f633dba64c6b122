// libFuzzer target: the POST /api/query JSON body parser.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "sundial/query/query_engine.h"
#include "sundial/query/query_spec.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view body(reinterpret_cast<const char*>(data), size);
  sundial::query::QuerySpec spec;
  (void)sundial::query::ParseQueryJson(body, 1700000000000, &spec);
  sundial::query::LastRequest last;
  (void)sundial::query::ParseLastJson(body, &last);
  sundial::query::LookupRequest lookup;
  (void)sundial::query::ParseLookupJson(body, &lookup);
  return 0;
}
