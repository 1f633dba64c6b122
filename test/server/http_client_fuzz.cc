// libFuzzer target: the command-line tools' chunked-body decoder. Arbitrary
// bytes, fed in pieces whose size comes from the first byte, must decode or
// fail with a reason, never crash, and never yield more payload than input.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "http_client.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const size_t step = static_cast<size_t>(data[0]) + 1;
  const std::string_view input(reinterpret_cast<const char*>(data) + 1, size - 1);
  sundial::server::ChunkedDecoder d;
  size_t payload = 0;
  bool stop = false;
  std::string error;
  for (size_t i = 0; i < input.size(); i += step) {
    if (!d.Feed(input.substr(i, step), [&](std::string_view p) { payload += p.size(); return true; },
                &stop, &error)) {
      if (error.empty()) __builtin_trap();
      break;
    }
  }
  if (payload > input.size()) __builtin_trap();
  return 0;
}
