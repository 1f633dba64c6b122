#include "storage/series_dict.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "storage/test_util.h"

namespace sundial::storage {
namespace {

TEST(SeriesDict, PersistsAndSkipsADamagedRecord) {
  testing::TempDir dir;
  auto env = NewPosixEnv();
  const std::string path = dir.path() + "/series.log";
  std::vector<SeriesId> ids;
  {
    SeriesDict d(env.get(), path, nullptr);
    std::vector<std::string> w;
    ASSERT_TRUE(d.Open(&w).ok());
    for (int i = 0; i < 100; ++i) {
      const std::string host = "host" + std::to_string(i);
      TagRef tags[] = {{"host", host}, {"rack", "r1"}};
      SeriesId id;
      bool created;
      ASSERT_TRUE(d.Resolve("cpu", tags, 2, &id, &created).ok());
      EXPECT_TRUE(created);
      ASSERT_TRUE(d.Resolve("cpu", tags, 2, &id, &created).ok());
      EXPECT_FALSE(created);
      ids.push_back(id);
    }
    EXPECT_EQ(d.SeriesWithTag("rack", "r1").size(), 100u);
  }
  {
    SeriesDict d(env.get(), path, nullptr);
    std::vector<std::string> w;
    ASSERT_TRUE(d.Open(&w).ok());
    EXPECT_TRUE(w.empty());
    EXPECT_EQ(d.series_count(), 100u);
    SeriesKey key;
    ASSERT_TRUE(d.GetSeriesKey(ids[42], &key).ok());
    EXPECT_EQ(key.tags[0].second, "host42");
    EXPECT_EQ(d.SuggestNames(NameKind::kTagValue, "host1", 3),
              (std::vector<std::string>{"host1", "host10", "host11"}));
  }
  // Damage the last series record: only that series is lost.
  const auto size = std::filesystem::file_size(path);
  {
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>(size - 2));
    f.put('\x7f');
  }
  SeriesDict d(env.get(), path, nullptr);
  std::vector<std::string> w;
  ASSERT_TRUE(d.Open(&w).ok());
  EXPECT_FALSE(w.empty());
  EXPECT_EQ(d.series_count(), 99u);
  SeriesId id;
  bool created;
  TagRef tags[] = {{"host", "host99"}, {"rack", "r1"}};
  ASSERT_TRUE(d.Resolve("cpu", tags, 2, &id, &created).ok());
  EXPECT_TRUE(created);  // re-created after the damaged record
}

}  // namespace
}  // namespace sundial::storage
