// Tombstone records (tombstones.h): round trips, every truncation and
// damaged byte refused or decoded without a crash, which pages a tombstone
// covers, hidden series; and an unguided run of the delete-records fuzz
// target.
#include "storage/tombstones.h"

#include <gtest/gtest.h>

#include <random>

#include "storage/fuzz_targets.h"
#include "storage/test_util.h"

namespace sundial::storage {
namespace {

Tombstone Make(SeriesId id, Timestamp start, Timestamp end, uint32_t file, uint64_t page_end) {
  Tombstone t;
  t.series = id;
  t.start = start;
  t.end = end;
  t.part_start = 0;
  t.page_file_id = file;
  t.page_end = page_end;
  t.has_cold = true;
  t.cold_id = 77;
  return t;
}

TEST(Tombstones, DeleteOpRoundTrip) {
  DeleteOp op;
  op.start = -5;
  op.end = kMaxTimestamp - 1;
  op.hide_empty = true;
  op.series = {0, 7, 1u << 30};
  std::string enc;
  EncodeDeleteOp(op, &enc);
  DeleteOp got;
  ASSERT_TRUE(DecodeDeleteOp(enc, &got));
  EXPECT_EQ(got.start, op.start);
  EXPECT_EQ(got.end, op.end);
  EXPECT_TRUE(got.hide_empty);
  EXPECT_EQ(got.series, op.series);
  for (size_t n = 0; n < enc.size(); ++n) {
    EXPECT_FALSE(DecodeDeleteOp(enc.substr(0, n), &got)) << n;  // every truncation
  }
  EXPECT_FALSE(DecodeDeleteOp(enc + "x", &got));  // trailing bytes
}

TEST(Tombstones, StateRoundTripAndVersion) {
  std::vector<Tombstone> list = {Make(1, 10, 20, 5, 4096), Make(2, -100, 100, 0, 0)};
  list[1].has_cold = false;
  std::string enc;
  EncodeDeleteState(list, {3, 9}, &enc);
  std::vector<Tombstone> got;
  std::vector<SeriesId> hidden;
  ASSERT_TRUE(DecodeDeleteState(enc, &got, &hidden));
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].page_end, 4096u);
  EXPECT_EQ(got[1].start, -100);
  EXPECT_FALSE(got[1].has_cold);
  EXPECT_EQ(hidden, (std::vector<SeriesId>{3, 9}));
  for (size_t n = 0; n < enc.size(); ++n) EXPECT_FALSE(DecodeDeleteState(enc.substr(0, n), &got, &hidden));
  enc[0] = 2;  // an unknown version
  EXPECT_FALSE(DecodeDeleteState(enc, &got, &hidden));
}

TEST(Tombstones, CoverOnlyThePagesThatExistedThen) {
  TombstoneSet set;
  EXPECT_TRUE(set.empty());
  set.Add(Make(1, 10, 20, 5, 4096));
  PartitionFiles f;
  f.part_start = 0;
  f.page_file_id = 5;
  f.has_cold = true;
  f.cold_id = 77;
  EXPECT_EQ(set.RangesFor(1, f, false, 100).size(), 1u);   // an old page
  EXPECT_TRUE(set.RangesFor(1, f, false, 4096).empty());   // written after
  EXPECT_EQ(set.RangesFor(1, f, true, 0).size(), 1u);      // the cold file then
  EXPECT_TRUE(set.RangesFor(2, f, false, 0).empty());      // another series
  f.page_file_id = 6;                                      // a new page file
  EXPECT_TRUE(set.RangesFor(1, f, false, 100).empty());
  f.cold_id = 5;                                           // a new cold file
  EXPECT_TRUE(set.RangesFor(1, f, true, 0).empty());
  EXPECT_TRUE(set.Covers(1, 0));
  set.RemoveIf([](const Tombstone& t) { return t.part_start == 0; });
  EXPECT_TRUE(set.empty());
}

TEST(Tombstones, HiddenSeries) {
  TombstoneSet set;
  set.Hide(5);
  set.Hide(2);
  set.Hide(5);
  EXPECT_TRUE(set.IsHidden(2));
  std::vector<SeriesId> ids = {1, 2, 3, 5};
  set.FilterHidden(&ids);
  EXPECT_EQ(ids, (std::vector<SeriesId>{1, 3}));
  set.Unhide(2);
  EXPECT_EQ(set.Hidden(), std::vector<SeriesId>{5});
}

TEST(Tombstones, FuzzSmoke) {
  std::mt19937_64 rng(testing::TestSeed(41));
  std::string op_enc, state_enc;
  DeleteOp op;
  op.start = 1;
  op.end = 2;
  op.series = {1, 2, 3};
  EncodeDeleteOp(op, &op_enc);
  EncodeDeleteState({Make(1, 10, 20, 5, 4096)}, {4}, &state_enc);
  for (int i = 0; i < 3000; ++i) {
    std::string s = i % 2 ? op_enc : state_enc;
    testing::Mutate(&s, &rng);
    FuzzDeleteRecords(reinterpret_cast<const uint8_t*>(s.data()), s.size());
  }
}

}  // namespace
}  // namespace sundial::storage
