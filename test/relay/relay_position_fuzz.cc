// libFuzzer entry point: see fuzz_targets.h.
#include <cstddef>
#include <cstdint>

#include "relay/fuzz_targets.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  sundial::relay::FuzzPosition(data, size);
  return 0;
}
