#include "relay/fuzz_targets.h"

#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "relay/http_response.h"
#include "relay/position_file.h"
#include "sundial/relay/target_spec.h"

namespace sundial::relay {

void FuzzHttpResponse(const uint8_t* data, size_t size) {
  const std::string_view in(reinterpret_cast<const char*>(data), size);
  for (bool eof : {false, true}) {
    HttpResponse r;
    size_t consumed = 0;
    std::string error;
    const ParseResult whole = ParseHttpResponse(in, eof, &r, &consumed, &error);
    if (whole == ParseResult::kComplete) {
      if (consumed > in.size() || r.status < 100 || r.status > 599) std::abort();
      if (r.body.size() > kMaxResponseBody) std::abort();
    }
    // A prefix is never complete with a different length than the whole.
    const std::string_view half = in.substr(0, size / 2);
    HttpResponse h;
    size_t hc = 0;
    if (ParseHttpResponse(half, false, &h, &hc, &error) == ParseResult::kComplete &&
        hc > half.size()) {
      std::abort();
    }
  }
}

void FuzzPosition(const uint8_t* data, size_t size) {
  const std::string_view in(reinterpret_cast<const char*>(data), size);
  PositionRecord r;
  if (DecodePosition(in, &r) && EncodePosition(r) != in) std::abort();  // round trip
}

void FuzzTargetSpec(const uint8_t* data, size_t size) {
  const std::string_view in(reinterpret_cast<const char*>(data), size);
  std::vector<TargetSpec> specs;
  if (!ParseTargetList(in, &specs).ok()) return;
  for (const TargetSpec& s : specs) {
    if (s.port == 0 || s.host.empty() || s.id.empty()) std::abort();
    // What is shown is parsed again to the same target.
    TargetSpec again;
    if (!ParseTarget(s.display, &again).ok() || again.id != s.id) {
      std::fprintf(stderr, "display %s of %s does not parse back\n", s.display.c_str(),
                   std::string(in).c_str());
      std::abort();
    }
    (void)MetricSelected(s, in);
  }
}

}  // namespace sundial::relay
