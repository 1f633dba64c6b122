#include "sundial/query/annotations.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>

#include "mem_storage.h"
#include "sundial/query/query_engine.h"

namespace sundial::query {
namespace {

using testing::MemStorage;
using testing::StringSink;

constexpr int64_t T = 1356998400;  // seconds

class AnnotationsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* base = std::getenv("TMPDIR");
    dir_ = std::string(base != nullptr ? base : "/tmp") + "/sundial-ann-XXXXXX";
    ASSERT_NE(mkdtemp(&dir_[0]), nullptr);
    env_ = NewPosixEnv();
    Reopen();
  }
  void TearDown() override {
    store_.reset();
    meta_.reset();
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  void Reopen() {
    store_.reset();
    meta_.reset();
    std::vector<std::string> w;
    ASSERT_TRUE(storage::MetaStore::Open(env_.get(), dir_, &meta_, &w).ok());
    store_ = std::make_unique<AnnotationStore>(meta_.get());
  }
  Annotation Note(const std::string& tsuid, int64_t start, const std::string& desc) {
    Annotation a;
    a.tsuid = tsuid;
    a.start_time = start;
    a.description = desc;
    return a;
  }
  Annotation Save(const Annotation& a) {
    AnnotationFields f;
    f.description = true;
    Annotation stored;
    EXPECT_TRUE(store_->Sync(a, f, true, &stored).ok());
    return stored;
  }

  std::string dir_;
  std::unique_ptr<Env> env_;
  std::unique_ptr<storage::MetaStore> meta_;
  std::unique_ptr<AnnotationStore> store_;
};

TEST(AnnotationJson, ParsesOpenTsdbFieldsAndPrintsTheSameShape) {
  Annotation a;
  AnnotationFields f;
  ASSERT_TRUE(ParseAnnotationJson(R"({"tsuid":"000001000001000001","startTime":1369141261,
      "endTime":"1369141262","description":"d","notes":"n","custom":{"owner":"jdoe","n":3},
      "unknown":true})", &a, &f).ok());
  EXPECT_TRUE(f.end_time && f.description && f.notes && f.custom);
  std::string out;
  AppendAnnotationJson(a, &out);
  EXPECT_EQ(out,
            R"({"tsuid":"000001000001000001","description":"d","notes":"n",)"
            R"("custom":{"n":"3","owner":"jdoe"},"endTime":1369141262,"startTime":1369141261})");
  Annotation g;
  ASSERT_TRUE(ParseAnnotationJson(R"({"startTime":5})", &g, &f).ok());
  EXPECT_FALSE(f.any());
  out.clear();
  AppendAnnotationJson(g, &out);
  EXPECT_EQ(out, R"({"description":"","notes":"","custom":null,"endTime":0,"startTime":5})");
}

TEST(AnnotationJson, BadInputIsInvalidArgument) {
  Annotation a;
  AnnotationFields f;
  EXPECT_TRUE(ParseAnnotationJson("", &a, &f).IsInvalidArgument());
  EXPECT_TRUE(ParseAnnotationJson("{", &a, &f).IsInvalidArgument());
  EXPECT_TRUE(ParseAnnotationJson("[]", &a, &f).IsInvalidArgument());
  EXPECT_TRUE(ParseAnnotationJson(R"({"startTime":"x"})", &a, &f).IsInvalidArgument());
  EXPECT_TRUE(ParseAnnotationJson(R"({"tsuid":"XYZ"})", &a, &f).IsInvalidArgument());
  EXPECT_TRUE(ParseAnnotationJson(R"({"custom":[1]})", &a, &f).IsInvalidArgument());
  std::vector<Annotation> many;
  std::vector<AnnotationFields> fields;
  ASSERT_TRUE(ParseAnnotationsJson(R"([{"startTime":1},{"startTime":2}])", &many, &fields).ok());
  EXPECT_EQ(many.size(), 2u);
  EXPECT_TRUE(ParseAnnotationsJson("3", &many, &fields).IsInvalidArgument());
}

TEST(AnnotationJson, SecondsAndMillisecondsNameTheSameSecond) {
  EXPECT_EQ(AnnotationSecond(1369141261), 1369141261);
  EXPECT_EQ(AnnotationSecond(1369141261000), 1369141261);
  EXPECT_EQ(AnnotationSecond(1369141261999), 1369141261);
  std::string t;
  ASSERT_TRUE(NormalizeTsuid("00000a", &t).ok());
  EXPECT_EQ(t, "00000A");
}

TEST_F(AnnotationsTest, PostMergesPutReplacesDeleteRemoves) {
  Annotation a = Note("000001000001000001", T, "first");
  a.notes = "n";
  AnnotationFields all;
  all.description = all.notes = true;
  Annotation stored;
  ASSERT_TRUE(store_->Sync(a, all, false, &stored).ok());
  // POST with only notes keeps the description.
  Annotation change = Note("000001000001000001", T * 1000, "");
  change.notes = "changed";
  AnnotationFields notes_only;
  notes_only.notes = true;
  ASSERT_TRUE(store_->Sync(change, notes_only, false, &stored).ok());
  EXPECT_EQ(stored.description, "first");
  EXPECT_EQ(stored.notes, "changed");
  // PUT replaces every field.
  ASSERT_TRUE(store_->Sync(change, notes_only, true, &stored).ok());
  EXPECT_EQ(stored.description, "");
  Reopen();
  Annotation got;
  ASSERT_TRUE(store_->Get("000001000001000001", T, &got).ok());
  EXPECT_EQ(got.notes, "changed");
  EXPECT_EQ(got.description, "");
  ASSERT_TRUE(store_->Delete("000001000001000001", T).ok());
  EXPECT_TRUE(store_->Get("000001000001000001", T, &got).IsNotFound());
  EXPECT_EQ(store_->Get("000001000001000001", T, &got).message(),
            "Unable to locate annotation in storage");
  EXPECT_TRUE(store_->Delete("000001000001000001", 0).IsInvalidArgument());
  EXPECT_TRUE(store_->Sync(Note("", 0, "x"), all, false, &stored).IsInvalidArgument());
}

TEST_F(AnnotationsTest, RangesAreInclusiveAndPerSeries) {
  Save(Note("000001000001000001", T, "a"));
  Save(Note("000001000001000001", T + 10, "b"));
  Save(Note("000001000001000002", T + 5, "other"));
  Save(Note("", T + 5, "global"));
  std::string out;
  EXPECT_EQ(store_->AppendRange("000001000001000001", T * 1000, (T + 10) * 1000, &out), 2u);
  EXPECT_NE(out.find("\"a\""), std::string::npos);
  EXPECT_NE(out.find("},{"), std::string::npos);
  out.clear();
  EXPECT_EQ(store_->AppendRange("000001000001000001", T * 1000 + 1, (T + 10) * 1000, &out), 1u);
  out.clear();
  EXPECT_EQ(store_->AppendRange("", 0, (T + 100) * 1000, &out), 1u);
  EXPECT_TRUE(store_->HasSeriesAnnotations());
  uint64_t deleted = 0;
  ASSERT_TRUE(store_->DeleteRange("000001000001000001", T * 1000, (T + 5) * 1000, &deleted).ok());
  EXPECT_EQ(deleted, 1u);
  ASSERT_TRUE(store_->DeleteRange("", 0, (T + 100) * 1000, &deleted).ok());
  EXPECT_EQ(deleted, 2u);
}

TEST_F(AnnotationsTest, QueryResultsCarryAnnotations) {
  MemStorage st;
  const SeriesId id = st.Add("m", {{"host", "a"}});
  st.Put(id, T * 1000, Value::Int(1));
  Save(Note("000001000001000001", T + 1, "deploy"));
  Save(Note("", T + 2, "outage"));
  QueryEngine engine(&st, {}, nullptr, nullptr, store_.get());
  const auto run = [&](const std::string& extra) {
    QuerySpec spec;
    EXPECT_TRUE(ParseQueryJson(R"({"start":)" + std::to_string(T) + R"(,"end":)" +
                                   std::to_string(T + 60) +
                                   R"(,"queries":[{"aggregator":"sum","metric":"m"}])" + extra +
                                   "}",
                               T * 1000, &spec)
                    .ok());
    StringSink sink;
    EXPECT_TRUE(engine.Execute(spec, &sink).ok());
    return sink.body;
  };
  std::string body = run("");
  EXPECT_NE(body.find(R"("aggregateTags":[],"annotations":[{"tsuid":"000001000001000001",)"
                      R"("description":"deploy")"),
            std::string::npos)
      << body;
  EXPECT_EQ(body.find("globalAnnotations"), std::string::npos);
  body = run(R"(,"globalAnnotations":true)");
  EXPECT_NE(body.find(R"("globalAnnotations":[{"description":"outage")"), std::string::npos)
      << body;
  body = run(R"(,"globalAnnotations":true,"noAnnotations":true)");
  EXPECT_EQ(body.find("nnotations"), std::string::npos) << body;
}

}  // namespace
}  // namespace sundial::query
