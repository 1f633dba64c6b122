#include "storage/series_dict.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <random>
#include <filesystem>
#include <fstream>

#include "storage/record_log.h"
#include "storage/test_util.h"

namespace sundial::storage {
namespace {

// SeriesOfMetricWithTag is SeriesOfMetric intersected with the union of
// SeriesWithTag over the values, sorted, each once.
TEST(SeriesDict, SeriesOfMetricWithTagIntersectsTheIndexes) {
  testing::TempDir dir;
  auto env = NewPosixEnv();
  SeriesDict d(env.get(), dir.path() + "/series.log", nullptr);
  std::vector<std::string> w;
  ASSERT_TRUE(d.Open(&w).ok());
  for (const char* metric : {"cpu", "mem"}) {
    for (int i = 0; i < 20; ++i) {
      const std::string host = "h" + std::to_string(i % 10);
      const std::string core = std::to_string(i / 10);
      TagRef tags[] = {{"host", host}, {"core", core}};
      SeriesId id;
      bool created;
      ASSERT_TRUE(d.Resolve(metric, tags, 2, &id, &created).ok());
    }
  }
  const auto reference = [&](std::string_view metric, std::string_view key,
                             const std::vector<std::string>& values) {
    const std::vector<SeriesId> of = d.SeriesOfMetric(metric);
    std::vector<SeriesId> out;
    for (const std::string& v : values) {
      for (SeriesId id : d.SeriesWithTag(key, v)) {
        if (std::binary_search(of.begin(), of.end(), id)) out.push_back(id);
      }
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
  };
  const std::vector<std::vector<std::string>> cases = {
      {"h3"}, {"h3", "h1", "h3"}, {"h9", "nope"}, {"nope"}, {}};
  for (const char* metric : {"cpu", "mem", "disk"}) {
    for (const auto& values : cases) {
      const auto got = d.SeriesOfMetricWithTag(metric, "host", values);
      EXPECT_EQ(got, reference(metric, "host", values)) << metric;
      EXPECT_TRUE(std::is_sorted(got.begin(), got.end()));
    }
  }
  EXPECT_EQ(d.SeriesOfMetricWithTag("cpu", "host", {"h3"}).size(), 2u);
  EXPECT_EQ(d.SeriesOfMetricWithTag("cpu", "host", {"h3", "h1"}).size(), 4u);
  EXPECT_TRUE(d.SeriesOfMetricWithTag("cpu", "rack", {"h3"}).empty());
}

// Keys with more tags than GetSeriesKey sorts on its stack come back
// sorted by tag key too.
TEST(SeriesDict, GetSeriesKeySortsManyTagsAndLendsNames) {
  testing::TempDir dir;
  auto env = NewPosixEnv();
  SeriesDict d(env.get(), dir.path() + "/series.log", nullptr);
  std::vector<std::string> w;
  ASSERT_TRUE(d.Open(&w).ok());
  std::vector<std::string> keys, values;
  for (int i = 20; i > 0; --i) {
    keys.push_back("k" + std::to_string(i));
    values.push_back("v" + std::to_string(i));
  }
  std::vector<TagRef> tags;
  for (size_t i = 0; i < keys.size(); ++i) tags.push_back({keys[i], values[i]});
  SeriesId id;
  bool created;
  ASSERT_TRUE(d.Resolve("m", tags.data(), tags.size(), &id, &created).ok());
  SeriesKey key;
  ASSERT_TRUE(d.GetSeriesKey(id, &key).ok());
  // The borrowed form says the same and stays valid as names are added.
  SeriesKeyRef ref;
  ASSERT_TRUE(d.GetSeriesKeyRef(id, &ref).ok());
  for (int i = 0; i < 1000; ++i) {
    const std::string v = "other" + std::to_string(i);
    TagRef more[] = {{"k1", v}};
    SeriesId other;
    ASSERT_TRUE(d.Resolve("m" + std::to_string(i), more, 1, &other, &created).ok());
  }
  EXPECT_EQ(ref.metric, key.metric);
  EXPECT_EQ(ref.metric_uid, key.metric_uid);
  EXPECT_EQ(ref.tag_uids, key.tag_uids);
  ASSERT_EQ(ref.tags.size(), key.tags.size());
  for (size_t i = 0; i < key.tags.size(); ++i) {
    EXPECT_EQ(ref.tags[i].first, key.tags[i].first);
    EXPECT_EQ(ref.tags[i].second, key.tags[i].second);
  }
  EXPECT_FALSE(d.GetSeriesKeyRef(id + 100000, &ref).ok());
  ASSERT_EQ(key.tags.size(), 20u);
  ASSERT_EQ(key.tag_uids.size(), 20u);
  for (size_t i = 1; i < key.tags.size(); ++i) EXPECT_LT(key.tags[i - 1].first, key.tags[i].first);
  for (const auto& [k, v] : key.tags) EXPECT_EQ("v" + k.substr(1), v);
}

// With max_series, no series is created once that many exist: the new
// one gets ResourceExhausted and nothing is written, while known series
// still resolve; a reopened dictionary counts the loaded ones.
TEST(SeriesDict, MaxSeriesStopsCreatingNewSeries) {
  testing::TempDir dir;
  auto env = NewPosixEnv();
  const std::string path = dir.path() + "/series.log";
  std::vector<std::string> w;
  SeriesId first = kInvalidSeriesId;
  {
    SeriesDict d(env.get(), path, nullptr, 3);
    ASSERT_TRUE(d.Open(&w).ok());
    bool created;
    SeriesId id;
    for (int i = 0; i < 3; ++i) {
      const std::string v = "h" + std::to_string(i);
      TagRef tags[] = {{"host", v}};
      ASSERT_TRUE(d.Resolve("cpu", tags, 1, &id, &created).ok());
      EXPECT_TRUE(created);
      if (i == 0) first = id;
    }
    uint64_t size = 0;
    ASSERT_TRUE(env->GetFileSize(path, &size).ok());
    TagRef fourth[] = {{"host", "h3"}};
    const Status s = d.Resolve("cpu", fourth, 1, &id, &created);
    EXPECT_TRUE(s.IsResourceExhausted()) << s.ToString();
    EXPECT_NE(s.message().find("too many series: 3 exist (max_series = 3)"), std::string::npos)
        << s.ToString();
    uint64_t after = 0;
    ASSERT_TRUE(env->GetFileSize(path, &after).ok());
    EXPECT_EQ(after, size);
    EXPECT_TRUE(d.SeriesOfMetric("cpu").size() == 3u);
    TagRef known[] = {{"host", "h0"}};
    ASSERT_TRUE(d.Resolve("cpu", known, 1, &id, &created).ok());
    EXPECT_FALSE(created);
    EXPECT_EQ(id, first);
  }
  // Reopened with a lower limit: all three load; none can be added.
  SeriesDict d(env.get(), path, nullptr, 2);
  ASSERT_TRUE(d.Open(&w).ok());
  EXPECT_EQ(d.series_count(), 3u);
  bool created;
  SeriesId id;
  TagRef fifth[] = {{"host", "h4"}};
  EXPECT_TRUE(d.Resolve("cpu", fifth, 1, &id, &created).IsResourceExhausted());
  TagRef known[] = {{"host", "h2"}};
  EXPECT_TRUE(d.Resolve("cpu", known, 1, &id, &created).ok());
}

// Names assigned without a series stop at max_series per kind; a known
// name still answers, and other kinds have their own count.
TEST(SeriesDict, MaxSeriesBoundsAssignedNamesPerKind) {
  testing::TempDir dir;
  auto env = NewPosixEnv();
  SeriesDict d(env.get(), dir.path() + "/series.log", nullptr, 2);
  std::vector<std::string> w;
  ASSERT_TRUE(d.Open(&w).ok());
  uint32_t uid = 0;
  bool created = false;
  ASSERT_TRUE(d.AssignName(NameKind::kTagValue, "a", &uid, &created).ok());
  ASSERT_TRUE(d.AssignName(NameKind::kTagValue, "b", &uid, &created).ok());
  const Status s = d.AssignName(NameKind::kTagValue, "c", &uid, &created);
  EXPECT_TRUE(s.IsResourceExhausted()) << s.ToString();
  EXPECT_NE(s.message().find("too many names: 2 of this kind exist (max_series = 2)"),
            std::string::npos)
      << s.ToString();
  EXPECT_TRUE(d.LookupUid(NameKind::kTagValue, "c", &uid).IsNotFound());
  ASSERT_TRUE(d.AssignName(NameKind::kTagValue, "a", &uid, &created).ok());
  EXPECT_FALSE(created);
  ASSERT_TRUE(d.AssignName(NameKind::kMetric, "m", &uid, &created).ok());
  EXPECT_TRUE(created);
}

TEST(SeriesDict, AssignNameWithoutASeriesIsDurable) {
  testing::TempDir dir;
  auto env = NewPosixEnv();
  const std::string path = dir.path() + "/series.log";
  {
    SeriesDict d(env.get(), path, nullptr);
    std::vector<std::string> w;
    ASSERT_TRUE(d.Open(&w).ok());
    uint32_t uid = 0;
    bool created = false;
    ASSERT_TRUE(d.AssignName(NameKind::kMetric, "m1", &uid, &created).ok());
    EXPECT_TRUE(created);
    EXPECT_EQ(uid, 1u);
    ASSERT_TRUE(d.AssignName(NameKind::kMetric, "m1", &uid, &created).ok());
    EXPECT_FALSE(created);
    ASSERT_TRUE(d.AssignName(NameKind::kTagValue, "v", &uid, &created).ok());
    EXPECT_TRUE(d.AssignName(NameKind::kTagKey, "", &uid, &created).IsInvalidArgument());
  }
  SeriesDict d(env.get(), path, nullptr);
  std::vector<std::string> w;
  ASSERT_TRUE(d.Open(&w).ok());
  EXPECT_TRUE(w.empty());
  EXPECT_EQ(d.series_count(), 0u);
  uint32_t uid = 0;
  ASSERT_TRUE(d.LookupUid(NameKind::kMetric, "m1", &uid).ok());
  std::string name;
  ASSERT_TRUE(d.NameOfUid(NameKind::kTagValue, 1, &name).ok());
  EXPECT_EQ(name, "v");
  EXPECT_TRUE(d.NameOfUid(NameKind::kTagValue, 2, &name).IsNotFound());
  // A series created later reuses the assigned uid.
  SeriesId id;
  bool created;
  ASSERT_TRUE(d.Resolve("m1", nullptr, 0, &id, &created).ok());
  SeriesKey key;
  ASSERT_TRUE(d.GetSeriesKey(id, &key).ok());
  EXPECT_EQ(key.metric_uid, 1u);
}

TEST(SeriesDict, RenameKeepsUidsAndSeriesAndSurvivesReopen) {
  testing::TempDir dir;
  auto env = NewPosixEnv();
  const std::string path = dir.path() + "/series.log";
  SeriesId id = 0;
  {
    SeriesDict d(env.get(), path, nullptr);
    std::vector<std::string> w;
    ASSERT_TRUE(d.Open(&w).ok());
    TagRef tags[] = {{"host", "a"}};
    bool created;
    ASSERT_TRUE(d.Resolve("old", tags, 1, &id, &created).ok());
    const uint64_t epoch = d.name_epoch()->load();
    ASSERT_TRUE(d.RenameName(NameKind::kMetric, "old", "new").ok());
    EXPECT_EQ(d.name_epoch()->load(), epoch + 1);
    EXPECT_TRUE(d.RenameName(NameKind::kMetric, "old", "x").IsNotFound());
    ASSERT_TRUE(d.RenameName(NameKind::kTagValue, "a", "b").ok());
    TagRef other[] = {{"host", "c"}};
    SeriesId other_id;
    ASSERT_TRUE(d.Resolve("new2", other, 1, &other_id, &created).ok());
    EXPECT_TRUE(d.RenameName(NameKind::kMetric, "new", "new2").IsInvalidArgument());
    // The old name is free again and gets a new uid.
    SeriesId again;
    ASSERT_TRUE(d.Resolve("old", tags, 1, &again, &created).ok());
    EXPECT_TRUE(created);
    EXPECT_NE(again, id);
  }
  SeriesDict d(env.get(), path, nullptr);
  std::vector<std::string> w;
  ASSERT_TRUE(d.Open(&w).ok());
  EXPECT_TRUE(w.empty());
  SeriesKey key;
  ASSERT_TRUE(d.GetSeriesKey(id, &key).ok());
  EXPECT_EQ(key.metric, "new");
  EXPECT_EQ(key.metric_uid, 1u);
  ASSERT_EQ(key.tags.size(), 1u);
  EXPECT_EQ(key.tags[0].second, "b");
  EXPECT_EQ(d.SeriesOfMetric("new"), std::vector<SeriesId>{id});
  EXPECT_EQ(d.SeriesOfMetric("old").size(), 1u);
  EXPECT_NE(d.SeriesOfMetric("old")[0], id);
}

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

// A damaged file header (any of its 16 bytes, or all of them) loses no
// series: the records after it carry their own CRCs and are all read, and
// the header is written afresh so that the next open is clean.
TEST(SeriesDict, DamagedHeaderKeepsEveryRecord) {
  for (int damage = 0; damage <= 16; ++damage) {
    testing::TempDir dir;
    auto env = NewPosixEnv();
    const std::string path = dir.path() + "/series.log";
    {
      SeriesDict d(env.get(), path, nullptr);
      std::vector<std::string> w;
      ASSERT_TRUE(d.Open(&w).ok());
      for (int i = 0; i < 50; ++i) {
        const std::string host = "h" + std::to_string(i);
        TagRef tag{"host", host};
        SeriesId id;
        bool created;
        ASSERT_TRUE(d.Resolve("cpu", &tag, 1, &id, &created).ok());
      }
      ASSERT_TRUE(d.Sync().ok());
    }
    {
      std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
      if (damage < 16) {
        f.seekp(damage);
        f.put('\x5a');
      } else {
        f.write(std::string(16, '\0').data(), 16);
      }
    }
    for (int round = 0; round < 2; ++round) {
      SeriesDict d(env.get(), path, nullptr);
      std::vector<std::string> w;
      ASSERT_TRUE(d.Open(&w).ok()) << damage;
      EXPECT_EQ(d.series_count(), 50u) << damage;
      EXPECT_EQ(d.SeriesOfMetric("cpu").size(), 50u) << damage;
      if (round == 0 && damage >= 12 && damage < 16) continue;  // reserved bytes: unchecked
      if (round == 0) {
        EXPECT_FALSE(w.empty()) << damage;  // reported
      } else {
        EXPECT_TRUE(w.empty()) << damage << ": " << w.front();  // header rewritten
      }
    }
  }
}

// Differential: random series (shared and distinct tag sets, varying tag
// counts) against a plain list of keys, before and after reopening the log.
TEST(SeriesDict, RandomIndexAgainstReference) {
  const char* env_seed = std::getenv("SUNDIAL_TEST_SEED");
  const uint32_t seed = env_seed != nullptr
                            ? static_cast<uint32_t>(std::strtoul(env_seed, nullptr, 10))
                            : std::random_device{}();
  std::printf("seed %u (set SUNDIAL_TEST_SEED to repeat)\n", seed);
  std::mt19937 rng(seed);
  testing::TempDir dir;
  auto env = NewPosixEnv();
  using Key = std::pair<std::string, std::map<std::string, std::string>>;
  std::vector<Key> ref;  // by series id
  const char* kKeys[] = {"host", "dc", "rack", "os", "core"};
  {
    SeriesDict d(env.get(), dir.path() + "/series.log", nullptr);
    std::vector<std::string> w;
    ASSERT_TRUE(d.Open(&w).ok());
    for (int i = 0; i < 3000; ++i) {
      Key k;
      k.first = "m" + std::to_string(rng() % 12);
      const size_t ntags = rng() % 5;
      for (size_t t = 0; t < ntags; ++t) {
        k.second[kKeys[rng() % 5]] = "v" + std::to_string(rng() % 6);
      }
      std::vector<TagRef> tags;
      for (const auto& [tk, tv] : k.second) tags.push_back({tk, tv});
      std::shuffle(tags.begin(), tags.end(), rng);
      SeriesId id;
      bool created;
      ASSERT_TRUE(d.Resolve(k.first, tags.data(), tags.size(), &id, &created).ok());
      const auto it = std::find(ref.begin(), ref.end(), k);
      ASSERT_EQ(created, it == ref.end()) << "seed " << seed;
      if (created) {
        ASSERT_EQ(id, ref.size()) << "seed " << seed;
        ref.push_back(k);
      } else {
        ASSERT_EQ(id, static_cast<SeriesId>(it - ref.begin())) << "seed " << seed;
      }
    }
  }
  SeriesDict d(env.get(), dir.path() + "/series.log", nullptr);
  std::vector<std::string> w;
  ASSERT_TRUE(d.Open(&w).ok());
  ASSERT_TRUE(w.empty());
  ASSERT_EQ(d.series_count(), ref.size());
  for (SeriesId id = 0; id < ref.size(); ++id) {
    SeriesKey key;
    ASSERT_TRUE(d.GetSeriesKey(id, &key).ok());
    ASSERT_EQ(key.metric, ref[id].first);
    ASSERT_EQ(key.tags.size(), ref[id].second.size());
    for (const auto& [tk, tv] : key.tags) ASSERT_EQ(ref[id].second.at(tk), tv) << "seed " << seed;
  }
  const auto matching = [&](auto pred) {
    std::vector<SeriesId> out;
    for (SeriesId id = 0; id < ref.size(); ++id) {
      if (pred(ref[id])) out.push_back(id);
    }
    return out;
  };
  const auto has = [](const Key& k, const std::string& tk, const std::string& tv) {
    const auto it = k.second.find(tk);
    return it != k.second.end() && it->second == tv;
  };
  for (int m = 0; m < 13; ++m) {
    const std::string metric = "m" + std::to_string(m);
    ASSERT_EQ(d.SeriesOfMetric(metric),
              matching([&](const Key& k) { return k.first == metric; }))
        << "seed " << seed;
  }
  for (const char* tk : kKeys) {
    for (int v = 0; v < 7; ++v) {
      const std::string tv = "v" + std::to_string(v);
      ASSERT_EQ(d.SeriesWithTag(tk, tv), matching([&](const Key& k) { return has(k, tk, tv); }))
          << "seed " << seed << " " << tk << "=" << tv;
      const std::string other = "v" + std::to_string(rng() % 7);
      const std::string metric = "m" + std::to_string(rng() % 13);
      ASSERT_EQ(d.SeriesOfMetricWithTag(metric, tk, {tv, other, "nope"}),
                matching([&](const Key& k) {
                  return k.first == metric && (has(k, tk, tv) || has(k, tk, other));
                }))
          << "seed " << seed;
    }
  }
}

// The records on_new_records is given bring back what a crash cut from the
// log (the engine's WAL holds them): same ids, same names, written back to
// the log; replaying them again changes nothing; a record that contradicts
// the log is refused with a warning.
TEST(SeriesDict, NewRecordsReplayedRestoreWhatTheLogLost) {
  testing::TempDir dir;
  auto env = NewPosixEnv();
  const std::string path = dir.path() + "/series.log";
  std::vector<std::string> wal;
  SeriesDict a(env.get(), path, nullptr, 0, [&](const std::string& records) {
    wal.push_back(records);
    return Status::OK();
  });
  std::vector<std::string> w;
  ASSERT_TRUE(a.Open(&w).ok());
  const std::pair<const char*, const char*> keys[] = {{"cpu", "a"}, {"cpu", "b"}, {"mem", "a"}};
  SeriesId ids[3];
  uint64_t after_first = 0;
  for (int i = 0; i < 3; ++i) {
    TagRef tag{"host", keys[i].second};
    bool created = false;
    ASSERT_TRUE(a.Resolve(keys[i].first, &tag, 1, &ids[i], &created).ok());
    ASSERT_TRUE(created);
    if (i == 0) {
      EXPECT_EQ(a.LogSize(), kLogFileHeaderSize);  // the owner's log has it
      ASSERT_TRUE(a.Sync().ok());                  // now this one too
      after_first = a.LogSize();
      EXPECT_GT(after_first, kLogFileHeaderSize);
    }
  }
  ASSERT_EQ(wal.size(), 3u);  // one call per new series, none for a known one
  EXPECT_EQ(a.LogSize(), after_first);
  ASSERT_TRUE(a.Sync().ok());
  EXPECT_GT(a.LogSize(), after_first);
  // A crash left the log with the first series only.
  const std::string cut = dir.path() + "/cut.log";
  std::filesystem::copy_file(path, cut);
  std::filesystem::resize_file(cut, after_first);
  auto lookup = [&](SeriesDict* d, int i) {
    TagRef tag{"host", keys[i].second};
    SeriesId id = kInvalidSeriesId;
    bool created = true;
    EXPECT_TRUE(d->Resolve(keys[i].first, &tag, 1, &id, &created).ok());
    EXPECT_FALSE(created) << keys[i].first << " host=" << keys[i].second;
    return id;
  };
  {
    SeriesDict b(env.get(), cut, nullptr);
    ASSERT_TRUE(b.Open(&w).ok());
    ASSERT_EQ(b.series_count(), 1u);
    for (const std::string& r : wal) EXPECT_TRUE(b.ReplayNewRecords(r, &w));
    EXPECT_TRUE(w.empty()) << w[0];
    EXPECT_EQ(b.LogSize(), a.LogSize());
    for (const std::string& r : wal) EXPECT_TRUE(b.ReplayNewRecords(r, &w));  // again
    EXPECT_TRUE(w.empty()) << w[0];
    EXPECT_EQ(b.LogSize(), a.LogSize());
    for (int i = 0; i < 3; ++i) EXPECT_EQ(lookup(&b, i), ids[i]);
    ASSERT_TRUE(b.Sync().ok());
  }
  SeriesDict c(env.get(), cut, nullptr);  // the log itself has them now
  ASSERT_TRUE(c.Open(&w).ok());
  EXPECT_TRUE(w.empty());
  EXPECT_EQ(c.series_count(), 3u);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(lookup(&c, i), ids[i]);

  // A log whose id 0 and first uids went to other names.
  SeriesDict d(env.get(), dir.path() + "/other.log", nullptr);
  ASSERT_TRUE(d.Open(&w).ok());
  TagRef zone{"zone", "z"};
  SeriesId disk = kInvalidSeriesId;
  bool created = false;
  ASSERT_TRUE(d.Resolve("disk", &zone, 1, &disk, &created).ok());
  ASSERT_EQ(disk, ids[0]);
  EXPECT_TRUE(d.ReplayNewRecords(wal[0], &w));
  ASSERT_FALSE(w.empty());
  EXPECT_NE(w.back().find("(a new series' record in the WAL)"), std::string::npos) << w.back();
  EXPECT_EQ(d.series_count(), 1u);
  SeriesKey key;
  ASSERT_TRUE(d.GetSeriesKey(disk, &key).ok());
  EXPECT_EQ(key.metric, "disk");
  w.clear();
  EXPECT_FALSE(d.ReplayNewRecords(std::string("\x02\xff", 2), &w));  // a torn entry
}

// When the owner's log refuses a new series' records, the series is not
// created: the log is cut back and the id goes to the next series.
TEST(SeriesDict, ASeriesTheOwnersLogRefusesIsNotCreated) {
  testing::TempDir dir;
  auto env = NewPosixEnv();
  const std::string path = dir.path() + "/series.log";
  bool refuse = true;
  {
    SeriesDict d(env.get(), path, nullptr, 0, [&](const std::string&) {
      return refuse ? Status::IOError("WAL write", "No space left on device") : Status::OK();
    });
    std::vector<std::string> w;
    ASSERT_TRUE(d.Open(&w).ok());
    const uint64_t empty = d.LogSize();
    TagRef tag{"host", "a"};
    SeriesId id = kInvalidSeriesId;
    bool created = false;
    const Status s = d.Resolve("cpu", &tag, 1, &id, &created);
    EXPECT_TRUE(s.IsIOError()) << s.ToString();
    EXPECT_NE(s.ToString().find("series dictionary"), std::string::npos) << s.ToString();
    EXPECT_EQ(d.LogSize(), empty);
    EXPECT_EQ(std::filesystem::file_size(path), empty);
    EXPECT_EQ(d.series_count(), 0u);
    refuse = false;
    TagRef other{"host", "b"};
    ASSERT_TRUE(d.Resolve("mem", &other, 1, &id, &created).ok());
    EXPECT_EQ(id, 0u);
    ASSERT_TRUE(d.Sync().ok());
  }
  SeriesDict again(env.get(), path, nullptr);
  std::vector<std::string> w;
  ASSERT_TRUE(again.Open(&w).ok());
  EXPECT_TRUE(w.empty());
  EXPECT_EQ(again.series_count(), 1u);
  EXPECT_TRUE(again.SeriesOfMetric("cpu").empty());
  uint32_t uid = 0;
  EXPECT_TRUE(again.LookupUid(NameKind::kMetric, "cpu", &uid).IsNotFound());
}

}  // namespace
}  // namespace sundial::storage
