// Compaction into cold files: the file format on its own, then the engine
// rewriting a partition (out-of-order pages and duplicates folded in) with
// the same answers before and after, across restarts, late writes and an
// interrupted compaction.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>
#include <tuple>

#include "common/fault_env.h"
#include "storage/cold_file.h"
#include "storage/fuzz_targets.h"
#include "storage/read_ahead.h"
#include "storage/storage_impl.h"
#include "storage/test_util.h"
#include "sundial/common/coding.h"
#include "sundial/compress/page_builder.h"
#include "sundial/compress/page_iterator.h"

namespace sundial::storage {
namespace {

namespace fs = std::filesystem;
using testing::ReadAll;
using testing::TempDir;

constexpr Timestamp kHour = 3600 * 1000;

std::string ReadFileBytes(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

void WriteFileBytes(const std::string& path, const std::string& data) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f << data;
}

uint64_t DirBytes(const std::string& dir) {
  uint64_t n = 0;
  for (const auto& e : fs::directory_iterator(dir)) n += e.file_size();
  return n;
}

// Pages of n points of series-specific values from t0, 10 s apart.
void MakePages(int n, Timestamp t0, int64_t salt, std::vector<std::string>* pages,
               std::vector<ColdPage>* times) {
  compress::PageBuilder b(256);
  auto seal = [&] {
    pages->emplace_back(b.data());
    times->push_back(ColdPage{0, 0, b.min_t(), b.max_t()});
    b.Reset();
  };
  for (int i = 0; i < n; ++i) {
    const Timestamp t = t0 + i * 10000;
    const Value v = Value::Int(salt * 1000 + i);
    if (!b.Append(t, v)) {
      seal();
      ASSERT_TRUE(b.Append(t, v));
    }
  }
  seal();
}

// Points as text ("t=i:v" or "t=f:v" with the exact double), so that
// comparisons print what differs.
std::string Text(const std::vector<Sample>& pts) {
  std::string out;
  char buf[64];
  for (const Sample& p : pts) {
    if (p.v.is_int()) {
      std::snprintf(buf, sizeof(buf), "%lld=i:%lld\n", static_cast<long long>(p.t),
                    static_cast<long long>(p.v.int_value()));
    } else {
      std::snprintf(buf, sizeof(buf), "%lld=f:%.17g\n", static_cast<long long>(p.t),
                    p.v.float_value());
    }
    out += buf;
  }
  return out;
}

struct ColdSeries {
  SeriesId id = 0;
  std::vector<std::string> pages;
  std::vector<ColdPage> times;
};

// Writes a cold file at path with, per (id, points, first time), the pages
// of MakePages (salted with the id); returns what it wrote.
// version 2 writes the format of files made before version 3.
std::vector<ColdSeries> WriteCold(const std::string& path, uint32_t replaced_id,
                                  const std::vector<std::tuple<SeriesId, int, Timestamp>>& specs,
                                  uint32_t version = 3) {
  auto env = NewPosixEnv();
  ColdFileWriter w(env.get(), 0, version);
  EXPECT_TRUE(w.Open(path, replaced_id).ok());
  std::vector<ColdSeries> out;
  for (const auto& [id, n, t0] : specs) {
    ColdSeries s;
    s.id = id;
    MakePages(n, t0, id, &s.pages, &s.times);
    EXPECT_TRUE(w.AddSeries(id, s.pages, s.times).ok());
    out.push_back(std::move(s));
  }
  EXPECT_TRUE(w.Finish().ok());
  return out;
}

// Every point of pages, in order.
std::vector<Sample> PointsOf(const std::vector<std::string>& pages) {
  std::vector<Sample> out;
  for (const std::string& p : pages) {
    compress::PageIterator it(p);
    while (it.Next()) out.push_back(Sample{it.t(), it.v()});
    EXPECT_TRUE(it.status().ok());
  }
  return out;
}

// Version 3 (columnar blocks, read back as pages of kColdPageSize) and
// version 2 (the pages as written; files from before version 3).
class ColdFileVersions : public ::testing::TestWithParam<uint32_t> {};

TEST_P(ColdFileVersions, RoundTripsPointsOfSeveralSeries) {
  TempDir dir;
  auto env = NewPosixEnv();
  const std::string path = dir.path() + "/cold";
  const auto written =
      WriteCold(path, 77, {{2, 100, 1000}, {5, 200, 1001}, {900, 300, 1002}}, GetParam());
  const SeriesId ids[] = {2, 5, 900};

  std::unique_ptr<ColdFile> c;
  Status st = ColdFile::Open(env.get(), path, 0, kHour, &c);
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(c->replaced_page_file_id(), 77u);
  EXPECT_EQ(c->SeriesIds(), std::vector<SeriesId>(std::begin(ids), std::end(ids)));
  EXPECT_FALSE(c->HasSeries(3));
  EXPECT_EQ(c->MaxTimeOf(3), kMinTimestamp);
  uint64_t total = 0;
  for (int s = 0; s < 3; ++s) {
    const ColdSeries& w = written[s];
    total += w.pages.size();
    EXPECT_EQ(c->MaxTimeOf(ids[s]), w.times.back().max_t);
    std::vector<ColdPage> got;
    st = c->PagesOf(ids[s], 0, kHour, &got);
    ASSERT_TRUE(st.ok()) << st.ToString();
    std::vector<std::string> pages;
    for (const ColdPage& p : got) {
      std::string page;
      ASSERT_TRUE(c->ReadPage(ids[s], p, &page).ok());
      const std::vector<Sample> pts = PointsOf({page});
      ASSERT_FALSE(pts.empty());
      EXPECT_EQ(p.min_t, pts.front().t);
      EXPECT_EQ(p.max_t, pts.back().t);
      pages.push_back(page);
    }
    EXPECT_EQ(Text(PointsOf(pages)), Text(PointsOf(w.pages)));
    if (GetParam() == 2) {
      EXPECT_EQ(pages, w.pages);
    }
    // A window inside the series lists only the pages overlapping it.
    got.clear();
    const Timestamp mid = w.times[0].max_t + 1;
    ASSERT_TRUE(c->PagesOf(ids[s], mid, mid, &got).ok());
    EXPECT_LE(got.size(), 1u);
  }
  EXPECT_EQ(c->page_count(), total);
  EXPECT_EQ(c->file_bytes(), fs::file_size(path));
}

INSTANTIATE_TEST_SUITE_P(Formats, ColdFileVersions, ::testing::Values(3u, 2u));

TEST(ColdFile, DamageIsReportedNotFollowed) {
  TempDir dir;
  auto env = NewPosixEnv();
  const std::string path = dir.path() + "/cold";
  const auto written = WriteCold(path, 1, {{1, 300, 0}, {2, 300, 0}});
  const std::string good = ReadFileBytes(path);

  // A flipped byte in the first block fails series 1 only.
  std::string bad = good;
  bad[kColdHeaderSize + kColdBlockHeaderSize + 5] ^= 0x40;
  WriteFileBytes(path, bad);
  std::unique_ptr<ColdFile> c;
  ASSERT_TRUE(ColdFile::Open(env.get(), path, 0, kHour, &c).ok());
  std::vector<ColdPage> pages;
  EXPECT_TRUE(c->PagesOf(1, 0, kHour, &pages).IsCorruption());
  ASSERT_TRUE(c->PagesOf(2, 0, kHour, &pages).ok());
  EXPECT_EQ(pages.size(), written[1].pages.size());

  // A damaged index or footer, or a cut file: the blocks are found again
  // by their own headers.
  const size_t n = good.size();
  for (size_t at : {n - static_cast<size_t>(kColdFooterSize) - 3, n - 2}) {
    bad = good;
    bad[at] ^= 0x01;
    WriteFileBytes(path, bad);
    ASSERT_TRUE(ColdFile::Open(env.get(), path, 0, kHour, &c).ok()) << at;
    EXPECT_FALSE(c->recovered().empty()) << at;
    EXPECT_EQ(c->SeriesIds(), (std::vector<SeriesId>{1, 2})) << at;
  }
  WriteFileBytes(path, good.substr(0, good.size() - 1));
  ASSERT_TRUE(ColdFile::Open(env.get(), path, 0, kHour, &c).ok());
  EXPECT_EQ(c->SeriesIds(), (std::vector<SeriesId>{1, 2}));
}

// One flipped bit anywhere in a cold file (header, block headers, blocks,
// index, footer) loses at most the one series whose block holds it.
TEST(ColdFile, AnyFlippedBitLosesAtMostOneSeries) {
  TempDir dir;
  auto env = NewPosixEnv();
  const std::string path = dir.path() + "/cold";
  const auto written = WriteCold(path, 1, {{1, 300, 0}, {2, 300, 0}, {3, 300, 0}});
  const std::string good = ReadFileBytes(path);
  for (size_t at = 0; at < good.size(); ++at) {
    std::string bad = good;
    bad[at] ^= static_cast<char>(1 << (at % 8));
    WriteFileBytes(path, bad);
    std::unique_ptr<ColdFile> c;
    ASSERT_TRUE(ColdFile::Open(env.get(), path, 0, kHour, &c).ok()) << "byte " << at;
    int lost = 0;
    for (SeriesId id = 1; id <= 3; ++id) {
      std::vector<ColdPage> pages;
      const Status s = c->PagesOf(id, 0, kHour, &pages);
      if (!s.ok() || pages.size() != written[id - 1].pages.size()) {
        ++lost;
        continue;
      }
      for (const ColdPage& p : pages) {
        std::string page;
        if (!c->ReadPage(id, p, &page).ok()) {
          ++lost;
          break;
        }
      }
    }
    EXPECT_LE(lost, 1) << "byte " << at << " of " << good.size();
  }
}

TEST(ColdFile, FuzzSmoke) {
  TempDir dir;
  const std::string path = dir.path() + "/cold";
  std::mt19937_64 rng(testing::TestSeed(23));
  for (uint32_t version : {3u, 2u}) {
    WriteCold(path, 1, {{4, 200, 0}, {9, 50, 7}}, version);
    const std::string good = ReadFileBytes(path);
    for (int i = 0; i < 2000; ++i) {
      std::string s = good;
      testing::Mutate(&s, &rng);
      FuzzColdFile(reinterpret_cast<const uint8_t*>(s.data()), s.size());
    }
  }
}

// The series ids of a cold file's blocks in file order, read from the
// block headers (format version 3).
std::vector<SeriesId> BlockOrder(const std::string& path) {
  const std::string f = ReadFileBytes(path);
  std::vector<SeriesId> ids;
  size_t pos = kColdHeaderSize;
  while (pos + kColdBlockHeaderSize <= f.size() && f.compare(pos, 4, "SCBK") == 0) {
    ids.push_back(DecodeFixed32(&f[pos + 4]));
    pos += kColdBlockHeaderSize + DecodeFixed32(&f[pos + 8]);
  }
  return ids;
}

// A File that records the read-ahead hints it is given.
class HintRecordingFile final : public File {
 public:
  explicit HintRecordingFile(std::unique_ptr<File> f) : f_(std::move(f)) {}
  Status Write(uint64_t o, const char* d, size_t n) override { return f_->Write(o, d, n); }
  Status Read(uint64_t o, size_t n, char* d, size_t* got) override {
    return f_->Read(o, n, d, got);
  }
  Status Sync() override { return f_->Sync(); }
  Status Truncate(uint64_t n) override { return f_->Truncate(n); }
  Status Size(uint64_t* n) override { return f_->Size(n); }
  Status Map(uint64_t o, size_t n, std::unique_ptr<MappedRegion>* out) override {
    return f_->Map(o, n, out);
  }
  const std::string& path() const override { return f_->path(); }
  void WillNeed(uint64_t offset, uint64_t len) override { hints.emplace_back(offset, len); }

  std::vector<std::pair<uint64_t, uint64_t>> hints;

 private:
  std::unique_ptr<File> f_;
};

TEST(ColdFile, SeriesInAnyOrderAreIndexedByIdAndAddedTwiceFail) {
  TempDir dir;
  auto env = NewPosixEnv();
  const std::string path = dir.path() + "/cold";
  const auto written = WriteCold(path, 1, {{900, 300, 0}, {2, 100, 5}, {5, 200, 9}});
  EXPECT_EQ(BlockOrder(path), (std::vector<SeriesId>{900, 2, 5}));  // as added
  std::unique_ptr<ColdFile> c;
  ASSERT_TRUE(ColdFile::Open(env.get(), path, 0, kHour, &c).ok());
  EXPECT_EQ(c->SeriesIds(), (std::vector<SeriesId>{2, 5, 900}));
  for (const ColdSeries& w : written) {
    std::vector<ColdPage> got;
    ASSERT_TRUE(c->PagesOf(w.id, 0, kHour, &got).ok());
    std::vector<std::string> pages;
    for (const ColdPage& p : got) {
      pages.emplace_back();
      ASSERT_TRUE(c->ReadPage(w.id, p, &pages.back()).ok());
    }
    EXPECT_EQ(Text(PointsOf(pages)), Text(PointsOf(w.pages))) << w.id;
  }

  ColdFileWriter twice(env.get(), 0);
  ASSERT_TRUE(twice.Open(dir.path() + "/twice", 1).ok());
  ASSERT_TRUE(twice.AddSeries(written[1].id, written[1].pages, written[1].times).ok());
  ASSERT_TRUE(twice.AddSeries(written[0].id, written[0].pages, written[0].times).ok());
  ASSERT_TRUE(twice.AddSeries(written[1].id, written[1].pages, written[1].times).ok());
  EXPECT_TRUE(twice.Finish().IsInvalidArgument());
}

TEST(ColdFile, WillNeedAsksOncePerStretchWithinItsBudget) {
  TempDir dir;
  auto env = NewPosixEnv();
  const std::string path = dir.path() + "/cold";
  // Series 8's block (random doubles: about 8 bytes a point) is far
  // larger than the gap two requests are joined across.
  std::mt19937_64 rng(testing::TestSeed(31));
  ColdFileWriter w(env.get(), 0);
  ASSERT_TRUE(w.Open(path, 1).ok());
  auto add = [&](SeriesId id, int n, bool random) {
    std::vector<std::string> pages;
    std::vector<ColdPage> times;
    if (!random) {
      MakePages(n, 0, id, &pages, &times);
    } else {
      compress::PageBuilder b(kColdPageSize);
      for (int i = 0; i < n; ++i) {
        const Value v = Value::Float(std::ldexp(static_cast<double>(rng() >> 11), -40));
        if (!b.Append(i * 10, v)) {
          pages.emplace_back(b.data());
          times.push_back(ColdPage{0, 0, b.min_t(), b.max_t()});
          b.Reset();
          ASSERT_TRUE(b.Append(i * 10, v));
        }
      }
      pages.emplace_back(b.data());
      times.push_back(ColdPage{0, 0, b.min_t(), b.max_t()});
    }
    ASSERT_TRUE(w.AddSeries(id, pages, times).ok());
  };
  add(3, 300, false);
  add(7, 300, false);
  add(8, 20000, true);
  add(1, 300, false);
  ASSERT_TRUE(w.Finish().ok());
  ASSERT_EQ(BlockOrder(path), (std::vector<SeriesId>{3, 7, 8, 1}));

  std::unique_ptr<File> f;
  ASSERT_TRUE(env->OpenFile(path, &f).ok());
  auto recording = std::make_unique<HintRecordingFile>(std::move(f));
  HintRecordingFile* hints = recording.get();
  std::unique_ptr<ColdFile> c;
  ASSERT_TRUE(ColdFile::FromFile(std::move(recording), 0, kHour, &c).ok());

  // Adjacent blocks: one request from the first one's bytes to the end of
  // the second; unknown ids are passed over.
  size_t covered = 9;
  const uint64_t two = c->WillNeed({7, 3, 4}, 1u << 30, &covered);
  EXPECT_EQ(covered, 3u);
  ASSERT_EQ(hints->hints.size(), 1u);
  EXPECT_EQ(hints->hints[0].first, kColdHeaderSize + kColdBlockHeaderSize);
  EXPECT_GT(two, 0u);
  EXPECT_EQ(hints->hints[0].second, two + kColdBlockHeaderSize);  // 7's header in between
  // 3 and 1 with series 8's large block between them: two requests.
  hints->hints.clear();
  c->WillNeed({1, 3}, 1u << 30, &covered);
  ASSERT_EQ(hints->hints.size(), 2u);
  EXPECT_LT(hints->hints[0].first, hints->hints[1].first);
  // The budget: blocks are taken in the order given while they fit.
  hints->hints.clear();
  const uint64_t three = c->WillNeed({3}, 1u << 30, &covered);
  hints->hints.clear();
  EXPECT_EQ(c->WillNeed({3, 8, 1}, three + 1, &covered), three);  // 8 does not fit: 3 only
  EXPECT_EQ(covered, 1u);
  EXPECT_EQ(hints->hints.size(), 1u);
  hints->hints.clear();
  EXPECT_EQ(c->WillNeed({8}, 1000, &covered), 0u);
  EXPECT_EQ(covered, 0u);
  EXPECT_TRUE(hints->hints.empty());
  // Reads do not depend on it.
  std::vector<ColdPage> pages;
  ASSERT_TRUE(c->PagesOf(8, 0, kHour, &pages).ok());
  EXPECT_FALSE(pages.empty());
}

class Compaction : public ::testing::Test {
 protected:
  void SetUp() override {
    options_ = testing::SmallOptions(dir_.path());
    options_.partition_duration_ms = kHour;
    Reopen();
  }
  void Reopen() {
    db_.reset();
    ASSERT_TRUE(StorageImpl::Open(options_, NewPosixEnv(), &db_).ok());
    TagRef tags[] = {{"host", "a"}};
    ASSERT_TRUE(db_->ResolveSeries("m", tags, 1, &a_).ok());
    tags[0].value = "b";
    ASSERT_TRUE(db_->ResolveSeries("m", tags, 1, &b_).ok());
  }
  void Put(SeriesId id, Timestamp t, Value v) {
    SeriesPoint p{id, t, v};
    ASSERT_TRUE(db_->Append(&p, 1).ok());
  }
  std::string PartDir() const {
    return dir_.path() + "/part/" + std::to_string(t0_) + "_" + std::to_string(t0_ + kHour);
  }
  // An hour of data for two series: in order, then late points and
  // rewrites of existing timestamps, each sealed as its own pages.
  void Fill() {
    for (int i = 0; i < 360; ++i) {
      Put(a_, t0_ + i * 10000, Value::Float(i * 0.25));
      Put(b_, t0_ + i * 10000 + 7, Value::Int(i * 3));
    }
    ASSERT_TRUE(db_->TEST_FlushAll().ok());
    for (int i = 0; i < 360; i += 7) {
      Put(a_, t0_ + i * 10000, Value::Int(-i));  // last write wins
      Put(b_, t0_ + i * 10000 + 3, Value::Float(0.5 + i));  // new late points
    }
    ASSERT_TRUE(db_->TEST_FlushAll().ok());
  }

  TempDir dir_;
  StorageOptions options_;
  std::unique_ptr<StorageImpl> db_;
  SeriesId a_ = 0, b_ = 0;
  const Timestamp t0_ = 10 * kHour;
};

TEST_F(Compaction, KeepsEveryAnswer) {
  Fill();
  const auto a = ReadAll(db_.get(), a_), b = ReadAll(db_.get(), b_);
  ASSERT_EQ(a.size(), 360u);
  ASSERT_EQ(b.size(), 360u + 52u);
  EXPECT_TRUE(a[7].v.BitEquals(Value::Int(-7)));

  ASSERT_TRUE(db_->TEST_Compact(t0_ + kHour).ok());
  EXPECT_EQ(db_->stats().partitions_compacted, 1u);
  EXPECT_TRUE(fs::exists(PartDir() + "/cold"));
  EXPECT_FALSE(fs::exists(PartDir() + "/pages"));
  EXPECT_FALSE(fs::exists(PartDir() + "/index"));
  EXPECT_EQ(Text(ReadAll(db_.get(), a_)), Text(a));
  EXPECT_EQ(Text(ReadAll(db_.get(), b_)), Text(b));
  EXPECT_EQ(Text(ReadAll(db_.get(), a_, t0_ + 700000, t0_ + 900000)),
            Text(std::vector<Sample>(a.begin() + 70, a.begin() + 91)));
  Sample last;
  ASSERT_TRUE(db_->LastPoint(b_, &last).ok());
  EXPECT_EQ(last.t, b.back().t);
  // Nothing left to compact.
  ASSERT_TRUE(db_->TEST_Compact(t0_ + kHour).ok());
  EXPECT_EQ(db_->stats().partitions_compacted, 1u);

  Reopen();
  EXPECT_EQ(Text(ReadAll(db_.get(), a_)), Text(a));
  EXPECT_EQ(Text(ReadAll(db_.get(), b_)), Text(b));
  EXPECT_TRUE(db_->recovery_warnings().empty());
}

// Retention removes a compacted partition whole: its cold file too, so
// that its directory goes, and removals() tells readers that points went.
TEST_F(Compaction, RetentionRemovesCompactedPartitions) {
  Fill();
  ASSERT_TRUE(db_->TEST_Compact(t0_ + kHour).ok());
  ASSERT_TRUE(fs::exists(PartDir() + "/cold"));
  EXPECT_EQ(db_->removals(), 0u);
  options_.retention_ms = 24 * kHour;  // the data is from 1970
  Reopen();
  db_->TEST_ApplyRetention();
  EXPECT_FALSE(fs::exists(PartDir()));
  EXPECT_GE(db_->removals(), 1u);
  EXPECT_TRUE(ReadAll(db_.get(), a_).empty());
  EXPECT_TRUE(ReadAll(db_.get(), b_).empty());
}

// A metric's series lie side by side in the cold file, whatever the order
// their ids were made in, so that a query of one metric reads one stretch.
TEST_F(Compaction, PutsTheSeriesOfAMetricSideBySide) {
  TagRef tags[] = {{"host", "c"}};
  SeriesId c = 0, d = 0, e = 0;
  ASSERT_TRUE(db_->ResolveSeries("n", tags, 1, &c).ok());
  tags[0].value = "d";
  ASSERT_TRUE(db_->ResolveSeries("m", tags, 1, &d).ok());
  tags[0].value = "e";
  ASSERT_TRUE(db_->ResolveSeries("n", tags, 1, &e).ok());
  ASSERT_LT(b_, c);
  ASSERT_LT(c, d);
  ASSERT_LT(d, e);
  for (SeriesId id : {a_, b_, c, d, e}) {
    for (int i = 0; i < 100; ++i) Put(id, t0_ + i * 10000, Value::Int(id * 1000 + i));
  }
  ASSERT_TRUE(db_->TEST_FlushAll().ok());
  ASSERT_TRUE(db_->TEST_Compact(t0_ + kHour).ok());
  EXPECT_EQ(BlockOrder(PartDir() + "/cold"), (std::vector<SeriesId>{a_, b_, d, c, e}));
  for (SeriesId id : {a_, b_, c, d, e}) {
    const auto got = ReadAll(db_.get(), id);
    ASSERT_EQ(got.size(), 100u);
    EXPECT_TRUE(got[99].v.BitEquals(Value::Int(id * 1000 + 99)));
  }
}

// WillRead asks for the blocks of a compacted partition and the pages of a
// page file at once, only those of the series and range asked for, within
// its byte budget; and reads are the same with or without it.
TEST_F(Compaction, WillReadHintsColdBlocksAndPagesOfTheSeriesAskedFor) {
  Fill();  // hour 0: compacted below
  ASSERT_TRUE(db_->TEST_Compact(t0_ + kHour).ok());
  for (int i = 0; i < 360; ++i) {  // hour 1: page file
    Put(a_, t0_ + kHour + i * 10000, Value::Int(i));
    Put(b_, t0_ + kHour + i * 10000, Value::Int(-i));
  }
  ASSERT_TRUE(db_->TEST_FlushAll().ok());
  const auto a = ReadAll(db_.get(), a_), b = ReadAll(db_.get(), b_);
  db_.reset();
  auto env = std::make_unique<sundial::testing::FaultInjectionEnv>(NewPosixEnv());
  sundial::testing::FaultInjectionEnv* f = env.get();
  ASSERT_TRUE(StorageImpl::Open(options_, std::move(env), &db_).ok());

  constexpr uint64_t kBudget = 8u << 20;
  f->SetFilter("/cold");
  size_t covered = 9;
  const uint64_t asked = db_->WillRead({a_, b_}, t0_, t0_ + 2 * kHour - 1, kBudget, &covered,
                                       nullptr);
  EXPECT_EQ(covered, 2u);
  EXPECT_EQ(f->will_need_calls(), 1u);  // the two blocks lie side by side
  const uint64_t cold_bytes = f->will_need_bytes();
  EXPECT_GT(cold_bytes, 0u);
  EXPECT_GE(asked, cold_bytes);  // and the page file's pages
  // A budget that holds one block buys that one; none buys nothing.
  const uint64_t block_a = db_->WillRead({a_}, t0_, t0_ + kHour - 1, kBudget, &covered, nullptr);
  EXPECT_EQ(covered, 1u);
  EXPECT_GT(block_a, 0u);
  EXPECT_LT(block_a, cold_bytes);
  EXPECT_EQ(db_->WillRead({a_, b_}, t0_, t0_ + kHour - 1, block_a, &covered, nullptr), block_a);
  EXPECT_EQ(covered, 1u);  // a's block only
  EXPECT_EQ(f->will_need_calls(), 3u);
  EXPECT_EQ(f->will_need_bytes(), cold_bytes + 2 * block_a);  // b's block did not fit
  EXPECT_EQ(db_->WillRead({a_, b_}, t0_, t0_ + 2 * kHour - 1, 0, &covered, nullptr), 0u);
  EXPECT_EQ(covered, 0u);
  EXPECT_EQ(f->will_need_calls(), 3u);
  f->SetFilter("/pages");
  const uint64_t base = f->will_need_bytes();
  db_->WillRead({a_, b_}, t0_, t0_ + 2 * kHour - 1, kBudget, &covered, nullptr);
  EXPECT_GE(f->will_need_calls(), 4u);
  const uint64_t page_bytes = f->will_need_bytes() - base;
  EXPECT_GT(page_bytes, 0u);
  // One series asks for less; a range before the data and an unknown
  // series ask for nothing.
  db_->WillRead({a_}, t0_ + kHour, t0_ + 2 * kHour - 1, kBudget, &covered, nullptr);
  const uint64_t one = f->will_need_bytes() - base - page_bytes;
  EXPECT_GT(one, 0u);
  EXPECT_LT(one, page_bytes);
  const uint64_t calls = f->will_need_calls();
  EXPECT_EQ(db_->WillRead({a_, b_}, 0, t0_ - 1, kBudget, &covered, nullptr), 0u);
  EXPECT_EQ(db_->WillRead({b_ + 100}, t0_, t0_ + 2 * kHour - 1, kBudget, &covered, nullptr), 0u);
  EXPECT_EQ(f->will_need_calls(), calls);
  // An iterator of a series a hint covered does not ask again; a plain one
  // asks for its pages.
  std::vector<Sample> hinted;
  for (auto it = db_->NewHintedIterator(a_, kMinTimestamp, kMaxTimestamp, nullptr);
       it->Next();) {
    hinted.push_back(Sample{it->t(), it->v()});
  }
  EXPECT_EQ(Text(hinted), Text(a));
  EXPECT_EQ(f->will_need_calls(), calls);

  EXPECT_EQ(Text(ReadAll(db_.get(), a_)), Text(a));
  EXPECT_GT(f->will_need_calls(), calls);
  EXPECT_EQ(Text(ReadAll(db_.get(), b_)), Text(b));
}

// With kept, WillRead reads the page-file pages of the series it covers
// into memory, and their hinted iterators read nothing from the file; a
// series it did not cover reads its pages as before. Answers are the same.
TEST_F(Compaction, WillReadKeepsPageFilePagesForHintedIterators) {
  std::mt19937_64 rng(testing::TestSeed(31));
  for (int i = 0; i < 3600; ++i) {  // one partition (an hour), many pages per series
    Put(a_, t0_ + i * 1000, Value::Float(static_cast<double>(rng() % 100000) / 100));
    Put(b_, t0_ + i * 1000, Value::Int(static_cast<int64_t>(rng() % 1000000)));
  }
  ASSERT_TRUE(db_->TEST_FlushAll().ok());
  const auto a = ReadAll(db_.get(), a_), b = ReadAll(db_.get(), b_);
  ASSERT_EQ(a.size(), 3600u);
  db_.reset();
  auto env = std::make_unique<sundial::testing::FaultInjectionEnv>(NewPosixEnv());
  sundial::testing::FaultInjectionEnv* f = env.get();
  ASSERT_TRUE(StorageImpl::Open(options_, std::move(env), &db_).ok());
  f->SetFilter("/pages");
  auto hinted = [&](SeriesId id, const ReadAhead* kept) {
    std::vector<Sample> out;
    for (auto it = db_->NewHintedIterator(id, kMinTimestamp, kMaxTimestamp, kept); it->Next();) {
      out.push_back(Sample{it->t(), it->v()});
    }
    return out;
  };

  constexpr uint64_t kBudget = 8u << 20;
  const Timestamp end = t0_ + kHour - 1;
  std::shared_ptr<const ReadAhead> kept;
  size_t covered = 0;
  const uint64_t both = db_->WillRead({a_, b_}, t0_, end, kBudget, &covered, &kept);
  EXPECT_EQ(covered, 2u);
  ASSERT_NE(kept, nullptr);
  uint64_t reads = f->reads();
  EXPECT_GT(reads, 0u);  // the joined stretches
  EXPECT_EQ(Text(hinted(a_, kept.get())), Text(a));
  EXPECT_EQ(Text(hinted(b_, kept.get())), Text(b));
  EXPECT_EQ(f->reads(), reads);  // every page came from memory
  EXPECT_EQ(Text(ReadAll(db_.get(), a_)), Text(a));
  EXPECT_GT(f->reads(), reads);  // a plain iterator reads the file

  // A budget that holds a's pages only: b's come from the file.
  const uint64_t only_a = db_->WillRead({a_}, t0_, end, kBudget, &covered, &kept);
  EXPECT_LT(only_a, both);
  EXPECT_EQ(db_->WillRead({a_, b_}, t0_, end, only_a, &covered, &kept), only_a);
  EXPECT_EQ(covered, 1u);
  ASSERT_NE(kept, nullptr);
  reads = f->reads();
  EXPECT_EQ(Text(hinted(a_, kept.get())), Text(a));
  EXPECT_EQ(f->reads(), reads);
  EXPECT_EQ(Text(hinted(b_, kept.get())), Text(b));
  EXPECT_GT(f->reads(), reads);

  // Nothing to read keeps nothing.
  EXPECT_EQ(db_->WillRead({a_, b_}, 0, t0_ - 1, kBudget, &covered, &kept), 0u);
  EXPECT_EQ(kept, nullptr);
}

TEST_F(Compaction, ShrinksRealisticData) {
  // Ten series of 2-decimal random walks every 10 s, plus a few late
  // points between them (the merge folds them into the walk's pages).
  std::mt19937_64 rng(testing::TestSeed(29));
  std::vector<SeriesId> ids;
  for (int s = 0; s < 10; ++s) {
    const std::string host = "h" + std::to_string(s);
    TagRef tags[] = {{"host", host}};
    SeriesId id = 0;
    ASSERT_TRUE(db_->ResolveSeries("walk", tags, 1, &id).ok());
    ids.push_back(id);
    int64_t cents = 5000;
    for (int i = 0; i < 360; ++i) {
      cents += static_cast<int64_t>(rng() % 101) - 50;
      Put(id, t0_ + i * 10000, Value::Float(static_cast<double>(cents) / 100));
    }
  }
  ASSERT_TRUE(db_->TEST_FlushAll().ok());
  for (int i = 0; i < 30; ++i) {
    Put(ids[rng() % ids.size()], t0_ + static_cast<Timestamp>(rng() % 360) * 10000 + 5000,
        Value::Float(static_cast<double>(4000 + rng() % 2000) / 100));
  }
  ASSERT_TRUE(db_->TEST_FlushAll().ok());
  std::vector<std::string> before;
  for (SeriesId id : ids) before.push_back(Text(ReadAll(db_.get(), id)));
  const uint64_t bytes = DirBytes(PartDir());
  ASSERT_TRUE(db_->TEST_Compact(t0_ + kHour).ok());
  const uint64_t cold = DirBytes(PartDir());
  std::printf("partition bytes: %llu before, %llu cold\n", static_cast<unsigned long long>(bytes),
              static_cast<unsigned long long>(cold));
  EXPECT_LT(cold, bytes);
  for (size_t i = 0; i < ids.size(); ++i) EXPECT_EQ(Text(ReadAll(db_.get(), ids[i])), before[i]);
}

TEST_F(Compaction, LateWritesAfterwardsWinAndCompactAgain) {
  Fill();
  ASSERT_TRUE(db_->TEST_Compact(t0_ + kHour).ok());
  auto a = ReadAll(db_.get(), a_);
  Put(a_, t0_ + 20000, Value::Int(4242));  // rewrites point 2
  Put(a_, t0_ + 25000, Value::Int(7));     // a new one between 2 and 3
  ASSERT_TRUE(db_->TEST_FlushAll().ok());
  EXPECT_TRUE(fs::exists(PartDir() + "/pages"));
  a[2].v = Value::Int(4242);
  a.insert(a.begin() + 3, Sample{t0_ + 25000, Value::Int(7)});
  EXPECT_EQ(Text(ReadAll(db_.get(), a_)), Text(a));

  Reopen();  // the new page file is not mistaken for a leftover
  EXPECT_EQ(Text(ReadAll(db_.get(), a_)), Text(a));
  ASSERT_TRUE(db_->TEST_Compact(t0_ + kHour).ok());
  EXPECT_FALSE(fs::exists(PartDir() + "/pages"));
  EXPECT_EQ(Text(ReadAll(db_.get(), a_)), Text(a));
  Reopen();
  EXPECT_EQ(Text(ReadAll(db_.get(), a_)), Text(a));
}

TEST_F(Compaction, InterruptedCompactionIsFinishedOrUndoneAtOpen) {
  Fill();
  ASSERT_TRUE(db_->TEST_Checkpoint().ok());  // marks the page file's length
  const auto a = ReadAll(db_.get(), a_), b = ReadAll(db_.get(), b_);
  const std::string part = PartDir().substr(dir_.path().size());
  const std::string pages = ReadFileBytes(PartDir() + "/pages");
  ASSERT_TRUE(db_->TEST_Compact(t0_ + kHour).ok());
  // A crash now, as a copy of the directory: then put back the page file,
  // as if the compaction had stopped after the rename, before removing it;
  // and an unfinished cold file of a later attempt.
  TempDir crashed;
  fs::copy(dir_.path(), crashed.path(), fs::copy_options::recursive);
  WriteFileBytes(crashed.path() + part + "/pages", pages);
  WriteFileBytes(crashed.path() + part + "/cold.tmp", "SUNDCLD1 half written");
  db_.reset();
  options_.data_dir = crashed.path();
  Reopen();
  EXPECT_EQ(Text(ReadAll(db_.get(), a_)), Text(a));  // each point once, not twice
  EXPECT_EQ(Text(ReadAll(db_.get(), b_)), Text(b));
  EXPECT_FALSE(fs::exists(crashed.path() + part + "/pages"));
  EXPECT_FALSE(fs::exists(crashed.path() + part + "/cold.tmp"));
  const auto warnings = db_->recovery_warnings();
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("interrupted compaction"), std::string::npos);
}

TEST_F(Compaction, DamagedColdBlockSkipsOnlyItsSeries) {
  Fill();
  const auto b = ReadAll(db_.get(), b_);
  ASSERT_TRUE(db_->TEST_Compact(t0_ + kHour).ok());
  db_.reset();
  std::string cold = ReadFileBytes(PartDir() + "/cold");
  // Inside series a's block (the first), past its block header.
  cold[kColdHeaderSize + kColdBlockHeaderSize + 10] ^= 0x10;
  WriteFileBytes(PartDir() + "/cold", cold);
  Reopen();
  EXPECT_TRUE(ReadAll(db_.get(), a_).empty());
  EXPECT_EQ(Text(ReadAll(db_.get(), b_)), Text(b));
  EXPECT_GE(db_->stats().corruptions_skipped, 1u);
}

}  // namespace
}  // namespace sundial::storage
