// libFuzzer entry point: see fuzz_targets.h.
#include <cstddef>
#include <cstdint>

#include "compress/fuzz_targets.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  sundial::compress::FuzzZstd(data, size);
  return 0;
}
