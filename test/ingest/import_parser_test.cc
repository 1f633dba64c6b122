#include "sundial/ingest/import_parser.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace sundial::ingest {
namespace {

// Feeds text in pieces of `step` bytes and returns every record as
// "<line>:<put line>" or "<line>!<error>".
std::vector<std::string> ParseAll(ImportFormat format, const std::string& text,
                                  size_t step = 1 << 20, ImportFormat* detected = nullptr) {
  ImportParser p(format);
  std::vector<std::string> out;
  ImportRecord r;
  const auto drain = [&] {
    while (p.Next(&r)) {
      out.push_back(std::to_string(r.line) + (r.ok ? ":" + r.put : "!" + r.error));
    }
  };
  for (size_t i = 0; i < text.size(); i += step) {
    p.Feed(text.substr(i, step));
    drain();
  }
  p.Finish();
  drain();
  if (detected != nullptr) *detected = p.format();
  return out;
}

TEST(ImportParser, TsdbLinesBecomePutLines) {
  ImportFormat f;
  const auto out = ParseAll(ImportFormat::kAuto,
                            "cpu 1356998400 1 host=a\n\n# note\ncpu 1356998401 2.5 host=b\r\n"
                            "mem 1356998402 3 host=c",
                            1 << 20, &f);
  EXPECT_EQ(f, ImportFormat::kTsdb);
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0], "1:put cpu 1356998400 1 host=a");
  EXPECT_EQ(out[1], "4:put cpu 1356998401 2.5 host=b");
  EXPECT_EQ(out[2], "5:put mem 1356998402 3 host=c");
}

TEST(ImportParser, PutLinesPassThroughAndOthersAreErrors) {
  ImportFormat f;
  const auto out =
      ParseAll(ImportFormat::kAuto, "put a 1 2 k=v\nversion\nput b 1 2 k=v\n", 3, &f);
  EXPECT_EQ(f, ImportFormat::kPut);
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0], "1:put a 1 2 k=v");
  EXPECT_EQ(out[1], "2!not a put line");
  EXPECT_EQ(out[2], "3:put b 1 2 k=v");
}

TEST(ImportParser, JsonArrayAndObjectsPerLine) {
  const std::string text =
      "[\n {\"metric\":\"m\",\"timestamp\":1356998400,\"value\":42,\"tags\":{\"h\":\"a\"}},\n"
      " {\"metric\":\"m\",\"timestamp\":1356998400500,\"value\":0.1,\"tags\":{\"h\":\"b\"}}\n]\n"
      "{\"metric\":\"n\",\"timestamp\":\"1356998401\",\"value\":\"7\",\"tags\":{\"x\":\"y\"}}\n"
      "{\"metric\":\"n\",\"timestamp\":1,\"value\":1e300,\"tags\":{\"x\":\"y\"}}\n"
      "{\"metric\":\"n\",\"timestamp\":1,\"value\":2.0,\"tags\":{\"x\":\"y\"}}\n";
  for (size_t step : {size_t{1}, size_t{7}, text.size()}) {
    ImportFormat f;
    const auto out = ParseAll(ImportFormat::kAuto, text, step, &f);
    EXPECT_EQ(f, ImportFormat::kJson);
    ASSERT_EQ(out.size(), 5u) << step;
    EXPECT_EQ(out[0], "2:put m 1356998400 42 h=a");
    EXPECT_EQ(out[1], "3:put m 1356998400500 0.1 h=b");
    EXPECT_EQ(out[2], "5:put n 1356998401 7 x=y");
    EXPECT_EQ(out[3], "6:put n 1 1e+300 x=y");
    EXPECT_EQ(out[4], "7:put n 1 2.0 x=y");
  }
}

TEST(ImportParser, BadJsonRecordsCarryLineNumbers) {
  const auto out = ParseAll(ImportFormat::kJson,
                            "{\"metric\":\"m\",\"timestamp\":1,\"value\":1,\"tags\":{\"a\":\"b\"}}\n"
                            "{\"metric\":\"m\",\"value\":1,\"tags\":{}}\n"
                            "garbage line\n"
                            "{\"metric\":\"m\",\"timestamp\":1,\"value\":true,\"tags\":{}}\n"
                            "{\"metric\":\"a b\",\"timestamp\":1,\"value\":1,\"tags\":{}}\n"
                            "{\"metric\":\"m\",\"timestamp\":1,\"value\":1,\"tags\":{\"k\":3}}\n"
                            "{\"metric\":\"m\",\"timestamp\":2,\"value\":1,\"tags\":{\"a\":\"b\"}}\n"
                            "{\"metric\":\"m\"");
  ASSERT_EQ(out.size(), 8u);
  EXPECT_EQ(out[0], "1:put m 1 1 a=b");
  EXPECT_EQ(out[1], "2!missing or non-integer \"timestamp\"");
  EXPECT_EQ(out[2], "3!unexpected character 'g' (expected a JSON object)");
  EXPECT_EQ(out[3], "4!missing or non-numeric \"value\"");
  EXPECT_EQ(out[4], "5!whitespace in metric name");
  EXPECT_EQ(out[5], "6!tag \"k\" has a non-string value");
  EXPECT_EQ(out[6], "7:put m 2 1 a=b");
  EXPECT_EQ(out[7], "8!unterminated JSON object");
}

TEST(ImportParser, OverlongLineIsSkippedAndCounted) {
  std::string text = "a 1 1 k=v\n" + std::string(kMaxRecordBytes + 10, 'x') + "\nb 2 2 k=v\n";
  const auto out = ParseAll(ImportFormat::kTsdb, text, 4096);
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0], "1:put a 1 1 k=v");
  EXPECT_EQ(out[1], "2!line longer than 1048576 bytes");
  EXPECT_EQ(out[2], "3:put b 2 2 k=v");
}

TEST(ImportParser, OverlongJsonRecordIsSkippedToTheNextLine) {
  const std::string good = "{\"metric\":\"m\",\"timestamp\":1,\"value\":1,\"tags\":{\"a\":\"b\"}}";
  const std::string text = good + "\n{\"metric\":\"" + std::string(kMaxRecordBytes + 10, 'x') +
                           "\"}\n" + good + "\n";
  const auto out = ParseAll(ImportFormat::kJson, text, 4096);
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0], "1:put m 1 1 a=b");
  EXPECT_EQ(out[1], "2!JSON object longer than 1048576 bytes");
  EXPECT_EQ(out[2], "3:put m 1 1 a=b");
}

TEST(ImportParser, FormatNames) {
  ImportFormat f;
  EXPECT_TRUE(ParseImportFormat("json", &f));
  EXPECT_EQ(f, ImportFormat::kJson);
  EXPECT_STREQ(ImportFormatName(ImportFormat::kTsdb), "tsdb");
  EXPECT_FALSE(ParseImportFormat("xml", &f));
}

}  // namespace
}  // namespace sundial::ingest
