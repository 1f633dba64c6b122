#include "fuzz_targets.h"

#include <fstream>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "sundial/rollup/rollup_file.h"
#include "test_util.h"

namespace sundial::rollup {

void FuzzDayFile(const uint8_t* data, size_t size) {
  const auto env = NewPosixEnv();
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  SeriesId id = 0;
  std::vector<HourStats> hours;
  (void)DecodeBlock(bytes, kFuzzDay, &id, &hours);

  testing::TempDir dir;
  const std::string path = dir.path() + "/" + DayFileName(kFuzzDay);
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  }
  std::unique_ptr<DayFileReader> reader;
  if (!DayFileReader::Open(env.get(), path, kFuzzDay, &reader).ok()) return;
  for (SeriesId sid : reader->ids()) (void)reader->Read(sid, &hours);
}

}  // namespace sundial::rollup
