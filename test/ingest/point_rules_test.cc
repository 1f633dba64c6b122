#include "sundial/ingest/point_rules.h"

#include <gtest/gtest.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>

namespace sundial::ingest {
namespace {

std::string LongError(std::string_view s) {
  int64_t v;
  std::string e;
  EXPECT_FALSE(ParseJavaLong(s, &v, &e)) << s;
  return e;
}

TEST(ParseJavaLong, AcceptsJavaLongs) {
  int64_t v;
  std::string e;
  ASSERT_TRUE(ParseJavaLong("9223372036854775807", &v, &e));
  EXPECT_EQ(v, INT64_MAX);
  ASSERT_TRUE(ParseJavaLong("-9223372036854775808", &v, &e));
  EXPECT_EQ(v, INT64_MIN);
  ASSERT_TRUE(ParseJavaLong("+0017", &v, &e));
  EXPECT_EQ(v, 17);
  ASSERT_TRUE(ParseJavaLong("-0", &v, &e));
  EXPECT_EQ(v, 0);
}

TEST(ParseJavaLong, MessagesMatchOpenTsdb) {
  EXPECT_EQ(LongError(""), "Empty string");
  EXPECT_EQ(LongError("+"), "Just a sign, no value: +");
  EXPECT_EQ(LongError("9223372036854775808"), "Overflow in 9223372036854775808");
  EXPECT_EQ(LongError("-9223372036854775809"), "Overflow in -9223372036854775809");
  EXPECT_EQ(LongError("12345678901234567890"), "Value too long: 12345678901234567890");
  EXPECT_EQ(LongError("+12345678901234567890"), "Value too long: +12345678901234567890");
  // Leading zeros count too: OpenTSDB checks the length first.
  EXPECT_EQ(LongError("00000000000000000001"), "Value too long: 00000000000000000001");
  EXPECT_EQ(LongError("1a"), "Invalid character 'a' in 1a");
  EXPECT_EQ(LongError("--1"), "Invalid character '-' in --1");
  EXPECT_EQ(LongError("1\xC3\xA9"), "Invalid character '\xC3\xA9' in 1\xC3\xA9");
}

TEST(ParseJavaLong, AgreesWithStrtollOnRandomDigits) {
  const char* env = std::getenv("SUNDIAL_SEED");
  const unsigned seed = env ? static_cast<unsigned>(std::strtoul(env, nullptr, 10)) : 20261122u;
  std::printf("SUNDIAL_SEED=%u\n", seed);
  std::mt19937_64 rng(seed);
  for (int i = 0; i < 20000; ++i) {
    std::string s = (rng() & 1) ? "-" : "";
    const int digits = 1 + static_cast<int>(rng() % 19);
    for (int d = 0; d < digits; ++d) s.push_back(static_cast<char>('0' + rng() % 10));
    errno = 0;
    const long long want = std::strtoll(s.c_str(), nullptr, 10);
    const bool overflow = errno == ERANGE;
    int64_t got;
    std::string e;
    ASSERT_EQ(ParseJavaLong(s, &got, &e), !overflow) << s;
    if (!overflow) {
      ASSERT_EQ(got, want) << s;
    }
  }
}

TEST(ParseValue, IntegerAndFloatTyping) {
  ParsedValue v;
  std::string e;
  ASSERT_TRUE(ParseValue("42", &v, &e));
  EXPECT_TRUE(v.value.is_int());
  ASSERT_TRUE(ParseValue("42.0", &v, &e));
  EXPECT_FALSE(v.value.is_int());
  EXPECT_TRUE(v.fits_float32);
  ASSERT_TRUE(ParseValue("0.1", &v, &e));
  EXPECT_FALSE(v.fits_float32);
  EXPECT_EQ(v.value.float_value(), 0.1);
  ASSERT_TRUE(ParseValue("1e-400", &v, &e));  // underflow: zero, like Java
  EXPECT_EQ(v.value.float_value(), 0.0);
  ASSERT_TRUE(ParseValue("1e400", &v, &e));  // overflow: infinity (row 9 rejects)
  EXPECT_TRUE(std::isinf(v.value.float_value()));
  ASSERT_TRUE(ParseValue("123456.123456789", &v, &e));
  EXPECT_EQ(v.value.float_value(), 123456.123456789);
}

TEST(ParseValue, RejectsWhatJavaOrOurGrammarRejects) {
  ParsedValue v;
  std::string e;
  for (const char* s : {".", "e5", "1e", "1e+", "+-1.0", "1.5ff", "nan.0", "inf.", "0x1.0p3",
                        "1..", "--.5", ".e1"}) {
    EXPECT_FALSE(ParseValue(s, &v, &e)) << s;
  }
  EXPECT_FALSE(ParseValue("1.2.3", &v, &e));
  EXPECT_EQ(e, "multiple points");
  EXPECT_FALSE(ParseValue("abc.", &v, &e));
  EXPECT_EQ(e, "For input string: \"abc.\"");
}

TEST(NameRules, CharacterClasses) {
  const NameRules rules("");
  EXPECT_TRUE(rules.Valid("sys.cpu-user_0/a"));
  EXPECT_TRUE(rules.Valid("Zürich"));
  EXPECT_TRUE(rules.Valid("\xE6\x9D\xB1\xE4\xBA\xAC"));  // Tokyo in kanji
  EXPECT_FALSE(rules.Valid(""));
  EXPECT_FALSE(rules.Valid("a b"));
  EXPECT_FALSE(rules.Valid("a\xD7"));  // a lone byte: Latin-1 multiplication sign
  EXPECT_TRUE(rules.Valid("a\xE9"));   // a lone byte: Latin-1 e acute, a letter
  std::string e;
  EXPECT_FALSE(rules.Validate("metric name", "a\xE2\x82\xAC", &e));
  EXPECT_EQ(e, "Invalid metric name (\"a\xE2\x82\xAC\"): illegal character: \xE2\x82\xAC");
}

TEST(JavaHashMap, OrderAndFormat) {
  const storage::TagRef tags[] = {{"host", "a"}, {"dc", "b"}, {"rack", "c"}};
  EXPECT_EQ(FormatJavaTagMap(tags, 3), "{rack=c, host=a, dc=b}");
  EXPECT_EQ(FormatJavaTagMap(tags, 0), "{}");
  // 13 keys make the map resize to 32 buckets.
  std::vector<std::string> keys;
  std::vector<storage::TagRef> many;
  for (int i = 0; i < 13; ++i) keys.push_back("k" + std::to_string(i));
  for (const auto& k : keys) many.push_back({k, "v"});
  EXPECT_EQ(FormatJavaTagMap(many.data(), many.size()),
            "{k0=v, k1=v, k2=v, k3=v, k4=v, k5=v, k11=v, k6=v, k10=v, k7=v, k8=v, k12=v, k9=v}");
}

TEST(PutTimestampToMs, SecondMaskRule) {
  EXPECT_EQ(PutTimestampToMs(1), 1000);
  EXPECT_EQ(PutTimestampToMs(4294967295), 4294967295000);
  EXPECT_EQ(PutTimestampToMs(4294967296), 4294967296);
}

}  // namespace
}  // namespace sundial::ingest
