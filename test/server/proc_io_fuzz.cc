// libFuzzer target: the /proc/<pid>/io parser behind the disk-write stats.
// Any text gives an answer or a refusal, never a crash; an accepted figure
// is what the write_bytes line says.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "disk_writes.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view in(reinterpret_cast<const char*>(data), size);
  uint64_t v = 0;
  if (sundial::server::ParseProcIoWriteBytes(in, &v)) {
    if (in.find("write_bytes:") == std::string_view::npos) std::abort();
  }
  return 0;
}
