// libFuzzer target: the GET /api/query m= sub-query grammar (and the time
// strings of start/end). Input: "<start>\n<m>".
#include <cstddef>
#include <cstdint>
#include <string>

#include "sundial/query/query_spec.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string in(reinterpret_cast<const char*>(data), size);
  const size_t nl = in.find('\n');
  sundial::query::ParamList params;
  if (nl == std::string::npos) {
    params = {{"start", "1h-ago"}, {"m", in}};
  } else {
    params = {{"start", in.substr(0, nl)}, {"m", in.substr(nl + 1)}, {"arrays", ""}};
  }
  sundial::query::QuerySpec spec;
  (void)sundial::query::ParseQueryParams(params, 1700000000000, &spec);
  sundial::query::SubQuery q;
  (void)sundial::query::ParseMSubQuery(in, &q);
  return 0;
}
