// libFuzzer target: the POST /api/query/exp JSON body parser, its
// validation and the echo of a valid request.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "sundial/query/exp_request.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view body(reinterpret_cast<const char*>(data), size);
  sundial::query::ExpRequest req;
  if (!sundial::query::ParseExpRequest(body, 1700000000000, &req).ok()) return 0;
  std::string echo;
  sundial::query::AppendExpRequestJson(req, &echo);
  return 0;
}
