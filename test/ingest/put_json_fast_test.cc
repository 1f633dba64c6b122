// The single-pass /api/put scanner against the general parser: for every
// body, the default parser (scanner first) and a general-only parser must
// agree on acceptance, messages, points and tags.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>

#include <gtest/gtest.h>

#include "sundial/ingest/put_json_parser.h"

namespace sundial::ingest {
namespace {

// Everything a caller can see of one parse, as text.
std::string Outcome(const PutJsonParser& parser, bool ok, const std::string& message,
                    const std::string& details) {
  std::string out = ok ? "ok" : "error: " + message + " / " + details;
  for (const JsonPutPoint& p : parser.points()) {
    out += "\n{null=" + std::to_string(p.is_null) + " m=" + std::to_string(p.has_metric) + ":" +
           std::string(p.metric) + " t=" + std::to_string(p.timestamp) +
           " v=" + std::to_string(p.has_value) + ":" + std::string(p.value) +
           " tags=" + std::to_string(p.has_tags) + ":" + std::string(p.tags_raw) + " [" +
           std::to_string(p.tags_begin) + "+" + std::to_string(p.tags_count) + "]";
    for (uint32_t i = 0; i < p.tags_count; ++i) {
      const storage::TagRef& t = parser.tags()[p.tags_begin + i];
      out += " " + std::string(t.key) + "=" +
             (t.value.data() == nullptr ? "<null>" : std::string(t.value));
    }
    out += "}";
  }
  return out + "\ntags total " + std::to_string(parser.tags().size());
}

// Parses body with both parsers, expects the same outcome, and returns
// whether the scanner alone handled it.
bool ExpectSame(const std::string& body) {
  PutJsonParser fast;
  PutJsonParser general(/*common_shape_fast=*/false);
  std::string m1, d1, m2, d2;
  const bool ok1 = fast.Parse(body, &m1, &d1);
  const bool ok2 = general.Parse(body, &m2, &d2);
  EXPECT_EQ(Outcome(fast, ok1, m1, d1), Outcome(general, ok2, m2, d2)) << "body: " << body;
  EXPECT_FALSE(general.last_parse_fast());
  return fast.last_parse_fast();
}

TEST(PutJsonFast, CommonBodiesTakeTheScanner) {
  const std::string tags = R"({"host":"web01","dc":"lga"})";
  const std::string body = R"([{"metric":"sys.cpu","timestamp":1700000000,"value":12.5,"tags":)" +
                           tags + R"(},{"value":-3e2,"tags":)" + tags +
                           R"(,"metric":"sys.mem","timestamp":1700000000123},)" +
                           R"( { "metric" : "a" , "timestamp" : 0 , "value" : 0 , "tags" : )" +
                           R"({ "k" : "" , "k" : "v" } } ])";
  EXPECT_TRUE(ExpectSame(body));
  EXPECT_TRUE(ExpectSame("\n[{\"metric\":\"m\"}]  trailing"));
  EXPECT_TRUE(ExpectSame(R"([{"value":0.5e-3},{"value":10E+2},{"timestamp":123456789012345678}])"));
}

TEST(PutJsonFast, UnusualBodiesFallBackWithTheSameOutcome) {
  for (const char* body : {
           "[]", "[ ]", "[null]", "[{}]", "{\"metric\":\"m\"}", "[{\"metric\":\"m\"},null]",
           R"([{"metric":"a\"b"}])", R"([{"metric":"\u00e9"}])", "[{\"metric\":\"\xC3\xA9\"}]",
           R"([{"metric":5}])", R"([{"metric":null}])", R"([{"metric":"m","metric":"n"}])",
           R"([{"other":1,"metric":"m"}])", R"([{"timestamp":"12"}])",
           R"([{"timestamp":012}])", R"([{"timestamp":1.5}])", R"([{"timestamp":1e3}])",
           R"([{"timestamp":-5}])", R"([{"timestamp":1234567890123456789}])",
           R"([{"timestamp":99999999999999999999}])", R"([{"value":"12"}])",
           R"([{"value":NaN}])", R"([{"value":-Infinity}])", R"([{"value":+1}])",
           R"([{"value":01}])", R"([{"value":1.}])", R"([{"value":.5}])", R"([{"value":1e}])",
           R"([{"value":1x}])", R"([{"value":true}])", R"([{"tags":null}])", R"([{"tags":{}}])",
           R"([{"tags":{"a":null}}])", R"([{"tags":{"a":1}}])", R"([{"tags":{"a":"b",}}])",
           R"([{"tags":{"a":"b"} "x":1}])", R"([{"tags":[]}])", R"([{"metric":"m"}{}])",
           R"([{"metric":"m"},])", "[{\"metric\":\"m\"}", "[{\"metric\":\"a\tb\"}]",
           "[{\"metric\":\"m\"\x01}]", "[{\"metr", "["}) {
    EXPECT_FALSE(ExpectSame(body)) << body;
  }
}

TEST(PutJsonFast, EveryPrefixOfABodyAgrees) {
  const std::string body =
      R"([{"metric":"sys.cpu.user","timestamp":1700000000,"value":-12.50e+1,)"
      R"("tags":{"host":"web01","dc":"lga"}}, {"metric":"sys.cpu.idle","timestamp":1700000010,)"
      R"("value":7,"tags":{"host":"web01","dc":"lga"}},{"tags":{"host":"web01","dc":"lg"},)"
      R"("metric":"x","value":0,"timestamp":3}])";
  for (size_t n = 0; n <= body.size(); ++n) ExpectSame(body.substr(0, n));
}

// Random bodies near the common shape, with random damage.
class BodyMaker {
 public:
  explicit BodyMaker(uint32_t seed) : rng_(seed) {}

  std::string Make() {
    std::string b = Ws() + "[";
    const int points = Pick(6);
    for (int i = 0; i < points; ++i) {
      if (i > 0) b += Ws() + ",";
      b += Ws() + (Pick(40) == 0 ? "null" : Point());
    }
    b += Ws() + "]" + (Pick(5) == 0 ? " x" : "");
    if (Pick(3) == 0) Damage(&b);
    return b;
  }

 private:
  int Pick(int n) { return static_cast<int>(rng_() % static_cast<uint32_t>(n)); }
  std::string Ws() {
    static const char* kWs[] = {"", "", "", "", " ", "\n", " \t\r\n"};
    return kWs[Pick(7)];
  }
  std::string Str(bool plain_only) {
    static const char* kPlain[] = {"web01", "", "sys.cpu.user", "a b", "x/y-z_1", "\x7f"};
    static const char* kOdd[] = {"a\\\"b", "\\u00e9", "\xC3\xA9", "\xC3", "a\\n", "\\x"};
    return "\"" + std::string(plain_only || Pick(10) > 0 ? kPlain[Pick(6)] : kOdd[Pick(6)]) +
           "\"";
  }
  std::string Number() {
    static const char* kNum[] = {"0",   "12",   "-3",   "12.50", "1e3",   "-0.5E-2", "7",
                                 "01",  "1.",   ".5",   "+1",    "NaN",   "-Infinity",
                                 "1e",  "\"3\"", "true", "null",  "-",     "123456789012345678",
                                 "1234567890123456789", "1700000000"};
    return kNum[Pick(Pick(4) == 0 ? 21 : 7)];
  }
  std::string Tags() {
    if (Pick(20) == 0) return Pick(2) ? "null" : "{}";
    if (Pick(3) > 0 && !last_tags_.empty()) return last_tags_;
    std::string t = "{";
    const int n = 1 + Pick(4);
    for (int i = 0; i < n; ++i) {
      if (i > 0) t += Ws() + ",";
      t += Ws() + Str(Pick(8) > 0) + Ws() + ":" + Ws();
      t += Pick(15) == 0 ? Number() : Str(Pick(8) > 0);
    }
    t += Ws() + "}";
    last_tags_ = t;
    return t;
  }
  std::string Point() {
    static const char* kNames[] = {"metric", "timestamp", "value", "tags"};
    std::string p = "{";
    int order[4] = {0, 1, 2, 3};
    std::shuffle(order, order + 4, rng_);
    const int fields = Pick(10) == 0 ? Pick(5) : 4;
    for (int i = 0; i < fields; ++i) {
      if (i > 0) p += Ws() + ",";
      int f = order[i];
      if (Pick(30) == 0) f = Pick(4);  // maybe a repeat
      p += Ws() + "\"" + (Pick(40) == 0 ? "extra" : kNames[f]) + "\"" + Ws() + ":" + Ws();
      switch (f) {
        case 0: p += Pick(15) == 0 ? Number() : Str(Pick(6) > 0); break;
        case 1: p += Pick(3) == 0 ? Number() : std::to_string(1700000000 + Pick(1000)); break;
        case 2: p += Number(); break;
        default: p += Tags(); break;
      }
    }
    return p + Ws() + "}";
  }
  void Damage(std::string* b) {
    if (b->empty()) return;
    const size_t at = static_cast<size_t>(rng_() % b->size());
    static const char kChars[] = "{}[]\",:\\ 0-.eE\x01\x80nNa";
    switch (Pick(4)) {
      case 0: b->resize(at); break;
      case 1: b->erase(at, 1); break;
      case 2: (*b)[at] = kChars[Pick(sizeof kChars - 1)]; break;
      default: b->insert(at, 1, kChars[Pick(sizeof kChars - 1)]); break;
    }
  }

  std::mt19937 rng_;
  std::string last_tags_;
};

TEST(PutJsonFast, RandomBodiesAgree) {
  uint32_t seed = std::random_device{}();
  if (const char* s = std::getenv("SUNDIAL_SEED")) seed = static_cast<uint32_t>(std::atoll(s));
  SCOPED_TRACE("SUNDIAL_SEED=" + std::to_string(seed));
  std::printf("PutJsonFast.RandomBodiesAgree: SUNDIAL_SEED=%u\n", seed);
  BodyMaker maker(seed);
  int fast = 0;
  constexpr int kBodies = 30000;
  for (int i = 0; i < kBodies && !HasFailure(); ++i) fast += ExpectSame(maker.Make());
  // The generator is biased to the common shape: both paths get exercised.
  EXPECT_GT(fast, kBodies / 20);
  EXPECT_LT(fast, kBodies - kBodies / 20);
}

}  // namespace
}  // namespace sundial::ingest
