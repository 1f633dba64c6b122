// ResultWriter's point layout: timestamps it writes from the previous one's
// text must read as std::to_chars writes them, in every mode.
#include "query/query_writer.h"

#include <gtest/gtest.h>

#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "sundial/query/aggregator.h"

namespace sundial::query {
namespace {

class StringSink final : public ChunkSink {
 public:
  bool Write(std::string&& chunk) override {
    out += chunk;
    return true;
  }
  std::string out;
};

std::string Int(int64_t v) {
  char buf[32];
  return std::string(buf, std::to_chars(buf, buf + sizeof(buf), v).ptr);
}

// The whole body ResultWriter should give for one result of these points
// (values are the point's index, as integers).
std::string Expected(const QuerySpec& spec, const std::vector<Timestamp>& ts) {
  std::string dps;
  for (size_t i = 0; i < ts.size(); ++i) {
    if (i) dps += ',';
    const std::string t = Int(spec.ms_resolution ? ts[i] : ts[i] / 1000);
    const std::string v = Int(static_cast<int64_t>(i));
    dps += spec.arrays ? "[" + t + "," + v + "]" : "\"" + t + "\":" + v;
  }
  return std::string("[{\"metric\":\"m\",\"tags\":{},\"aggregateTags\":[],\"dps\":") +
         (spec.arrays ? "[" + dps + "]" : "{" + dps + "}") + "}]";
}

TEST(ResultWriter, TimestampsReadAsToCharsWritesThem) {
  const char* env = std::getenv("SUNDIAL_SEED");
  uint64_t x = env ? std::strtoull(env, nullptr, 10) : 0x2545F4914F6CDD1Dull;
  std::printf("ResultWriter.TimestampsReadAsToCharsWritesThem seed %llu\n",
              static_cast<unsigned long long>(x));
  const auto next = [&x] {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return x;
  };
  size_t n = 0;
  const Aggregator* max = FindAggregator("max");
  ASSERT_NE(max, nullptr);
  for (int round = 0; round < 3000; ++round) {
    QuerySpec spec;
    spec.ms_resolution = next() % 2 == 0;
    spec.arrays = next() % 3 == 0;
    SubQuery q;
    q.aggregator = max;
    // Start near a power of ten (carries into a new digit), anywhere, or
    // below zero; then steps that carry, stay, jump back or jump far.
    int64_t p10 = 1;
    for (uint64_t k = next() % 14; k > 0; --k) p10 *= 10;
    int64_t t = 0;
    switch (next() % 3) {
      case 0: t = p10 - static_cast<int64_t>(next() % 200); break;
      case 1: t = static_cast<int64_t>(next() % 4000000000000ull); break;
      default: t = -static_cast<int64_t>(next() % 100000000); break;
    }
    std::vector<Timestamp> ts;
    for (int i = 0, len = static_cast<int>(next() % 40); i < len; ++i) {
      ts.push_back(t);
      switch (next() % 8) {
        case 0: t -= static_cast<int64_t>(next() % 5000); break;
        case 1: t += static_cast<int64_t>(next() % 5000000000000ull); break;
        case 2: break;
        default: t += static_cast<int64_t>(next() % 120000); break;
      }
    }
    StringSink sink;
    ResultWriter w(spec, &sink);
    const std::string metric = "m";
    GroupHeader h{&metric, {}, {}, {}, {}, nullptr};
    w.BeginResult(q, h);
    for (size_t i = 0; i < ts.size(); ++i) w.AddPoint(ts[i], Value::Int(static_cast<int64_t>(i)));
    ASSERT_TRUE(w.EndResult(ResultStats{}));
    ASSERT_TRUE(w.Finish(ResultStats{}));
    ASSERT_EQ(sink.out, Expected(spec, ts)) << "round " << round;
    n += ts.size();
  }
  EXPECT_GT(n, 30000u);
}

}  // namespace
}  // namespace sundial::query
