// libFuzzer target: a whole remote_write body. The input is decoded twice:
// as a snappy block (the HTTP body) and, so that the fuzzer reaches the
// protobuf decoder without having to learn snappy, as the uncompressed
// WriteRequest itself. Every view the decoder returns must lie inside the
// decoded buffer and nothing may crash.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "sundial/ingest/remote_write.h"

namespace {

using namespace sundial::ingest;

bool Inside(std::string_view part, std::string_view whole) {
  return part.empty() ||
         (part.data() >= whole.data() && part.data() + part.size() <= whole.data() + whole.size());
}

void Decode(std::string_view message) {
  WriteRequestView view;
  if (!DecodeWriteRequest(message, &view).ok()) return;
  size_t samples = 0;
  std::vector<RemoteLabel> labels;
  for (const RemoteSeries& s : view.series()) {
    if (!Inside(s.message, message) || !Inside(s.name_field, s.message) ||
        !Inside(s.other_labels, s.message)) {
      __builtin_trap();
    }
    if (WriteRequestView::DecodeLabels(s, &labels).ok()) {
      for (const RemoteLabel& l : labels) {
        if (!Inside(l.name, s.message) || !Inside(l.value, s.message)) __builtin_trap();
      }
    }
    samples += s.num_samples;
  }
  if (samples != view.total_samples()) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  std::string body;
  const auto s = SnappyUncompress(input, 1 << 20, &body);
  if (s.ok()) Decode(body);
  Decode(input);
  return 0;
}
