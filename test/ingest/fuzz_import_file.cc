// libFuzzer target: the bulk import file parser. The input is fed in two
// pieces split at a byte taken from the data, in each format; every record
// must be a put line without a newline or an error with a reason, line
// numbers never decrease, and nothing may crash.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "sundial/ingest/import_parser.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace sundial::ingest;
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const size_t split = size == 0 ? 0 : data[0] % (size + 1);
  for (ImportFormat f : {ImportFormat::kAuto, ImportFormat::kTsdb, ImportFormat::kPut,
                         ImportFormat::kJson}) {
    ImportParser parser(f);
    ImportRecord r;
    uint64_t last_line = 0;
    const auto drain = [&] {
      while (parser.Next(&r)) {
        if (r.line < last_line || r.line == 0) __builtin_trap();
        last_line = r.line;
        if (r.ok && (r.put.compare(0, 4, "put ") != 0 ||
                     r.put.find('\n') != std::string::npos)) {
          __builtin_trap();
        }
        if (!r.ok && r.error.empty()) __builtin_trap();
      }
    };
    parser.Feed(input.substr(0, split));
    drain();
    parser.Feed(input.substr(split));
    parser.Finish();
    drain();
  }
  return 0;
}
