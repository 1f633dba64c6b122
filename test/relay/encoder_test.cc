#include "relay/encoder.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "sundial/common/coding.h"

namespace sundial::relay {
namespace {

const SeriesNames kCpu{"sys.cpu.user", {{"cpu", "0"}, {"host", "web 1"}}, {}};

TEST(Encoder, TelnetLinesUseSecondsWhenWhole) {
  const RelayPoint pts[] = {{&kCpu, 1700000000000, Value::Int(42)},
                            {&kCpu, 1700000000250, Value::Float(0.5)}};
  std::string out;
  EXPECT_EQ(EncodeBatch(Protocol::kTelnet, pts, 2, &out), 0u);
  EXPECT_EQ(out,
            "put sys.cpu.user 1700000000 42 cpu=0 host=web 1\n"
            "put sys.cpu.user 1700000000250 0.5 cpu=0 host=web 1\n");
}

TEST(Encoder, PutJsonKeepsIntegersAndQuotesNonFinite) {
  const RelayPoint pts[] = {{&kCpu, 1000, Value::Int(-7)},
                            {&kCpu, 2000, Value::Float(std::nan(""))}};
  std::string out;
  EncodeBatch(Protocol::kHttpPut, pts, 2, &out);
  EXPECT_EQ(out,
            "[{\"metric\":\"sys.cpu.user\",\"timestamp\":1000,\"value\":-7,\"tags\":{\"cpu\":\"0\","
            "\"host\":\"web 1\"}},{\"metric\":\"sys.cpu.user\",\"timestamp\":2000,\"value\":\"NaN\","
            "\"tags\":{\"cpu\":\"0\",\"host\":\"web 1\"}}]");
}

TEST(Encoder, InfluxEscapesAndLeavesOutNonFinite) {
  const SeriesNames odd{"a,b c", {{"k=1", "v,2"}}, {}};
  const RelayPoint pts[] = {{&odd, 5, Value::Int(3)},
                            {&odd, 6, Value::Float(std::numeric_limits<double>::infinity())},
                            {&odd, 7, Value::Float(1.25)}};
  std::string out;
  EXPECT_EQ(EncodeBatch(Protocol::kInflux, pts, 3, &out), 1u);
  EXPECT_EQ(out, "a\\,b\\ c,k\\=1=v\\,2 value=3i 5\na\\,b\\ c,k\\=1=v\\,2 value=1.25 7\n");
}

// Reads one length-delimited field (tag byte, varint length) from *in.
std::string_view Field(std::string_view* in, uint32_t want_field) {
  uint32_t tag = 0;
  EXPECT_TRUE(GetVarint32(in, &tag));
  EXPECT_EQ(tag, (want_field << 3) | 2);
  uint32_t len = 0;
  EXPECT_TRUE(GetVarint32(in, &len));
  std::string_view out = in->substr(0, len);
  in->remove_prefix(len);
  return out;
}

TEST(Encoder, RemoteWriteGroupsSamplesPerSeries) {
  const SeriesNames other{"m", {}, {}};
  const RelayPoint pts[] = {{&kCpu, 1000, Value::Int(1)},
                            {&other, 1500, Value::Float(2.5)},
                            {&kCpu, 2000, Value::Int(3)}};
  std::string out;
  EncodeBatch(Protocol::kRemoteWrite, pts, 3, &out);
  std::string_view in = out;
  std::string_view ts = Field(&in, 1);
  // Labels sorted by name: __name__, cpu, host.
  const char* want[][2] = {{"__name__", "sys_cpu_user"}, {"cpu", "0"}, {"host", "web 1"}};
  for (const auto& kv : want) {
    std::string_view label = Field(&ts, 1);
    EXPECT_EQ(Field(&label, 1), kv[0]);
    EXPECT_EQ(Field(&label, 2), kv[1]);
  }
  for (int64_t t : {1000, 2000}) {
    std::string_view sample = Field(&ts, 2);
    ASSERT_EQ(sample[0], 0x09);  // field 1, fixed64
    EXPECT_EQ(BitsToDouble(DecodeFixed64(sample.data() + 1)), t == 1000 ? 1.0 : 3.0);
    sample.remove_prefix(9);
    ASSERT_EQ(sample[0], 0x10);  // field 2, varint
    sample.remove_prefix(1);
    uint64_t got = 0;
    ASSERT_TRUE(GetVarint64(&sample, &got));
    EXPECT_EQ(static_cast<int64_t>(got), t);
  }
  EXPECT_TRUE(ts.empty());
  std::string_view second = Field(&in, 1);
  std::string_view label = Field(&second, 1);
  EXPECT_EQ(Field(&label, 1), "__name__");
  EXPECT_EQ(Field(&label, 2), "m");
  EXPECT_TRUE(in.empty());
}

TEST(Encoder, ValuesReadBackExactly) {
  for (double d : {0.1, 1e300, -2.5e-7, 123456789.125}) {
    std::string s;
    AppendValue(Value::Float(d), &s);
    EXPECT_EQ(std::stod(s), d) << s;
  }
  std::string s;
  AppendValue(Value::Int(std::numeric_limits<int64_t>::min()), &s);
  EXPECT_EQ(s, "-9223372036854775808");
}

TEST(Encoder, PrometheusNames) {
  EXPECT_EQ(PrometheusName("sys.cpu-user:x", true), "sys_cpu_user:x");
  EXPECT_EQ(PrometheusName("9lives", false), "_lives");
  EXPECT_EQ(PrometheusName("a:b", false), "a_b");
}

}  // namespace
}  // namespace sundial::relay
