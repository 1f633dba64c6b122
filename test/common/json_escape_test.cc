#include "sundial/common/json_escape.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <random>
#include <string>

namespace sundial {
namespace {

std::string Json(std::string_view s) {
  std::string out;
  AppendJsonString(s, &out);
  return out;
}

// Independent UTF-8 decoder (by code point arithmetic, not byte tables):
// appends the code points of s to *cps; false if s is not well-formed.
bool DecodeUtf8(std::string_view s, std::u32string* cps) {
  for (size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    size_t len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    if (len == 0 || i + len > s.size()) return false;
    uint32_t cp = len == 1 ? c : c & (0x7F >> len);
    for (size_t k = 1; k < len; ++k) {
      const auto b = static_cast<unsigned char>(s[i + k]);
      if ((b & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (b & 0x3F);
    }
    static constexpr uint32_t kMin[5] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < kMin[len] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return false;
    cps->push_back(cp);
    i += len;
  }
  return true;
}

// A strict RFC 8259 string-literal checker: *decoded gets the code points.
bool ValidJsonString(std::string_view j, std::u32string* decoded) {
  if (j.size() < 2 || j.front() != '"' || j.back() != '"') return false;
  std::u32string cps;
  if (!DecodeUtf8(j.substr(1, j.size() - 2), &cps)) return false;
  for (size_t i = 0; i < cps.size(); ++i) {
    const char32_t c = cps[i];
    if (c < 0x20 || c == '"') return false;
    if (c != '\\') {
      decoded->push_back(c);
      continue;
    }
    if (++i == cps.size()) return false;
    const char32_t e = cps[i];
    if (e == 'u') {
      if (i + 4 >= cps.size()) return false;
      uint32_t v = 0;
      for (int k = 1; k <= 4; ++k) {
        const char32_t h = cps[i + k];
        if (!std::isxdigit(static_cast<int>(h))) return false;
        v = v * 16 + static_cast<uint32_t>(h <= '9' ? h - '0' : (h | 0x20) - 'a' + 10);
      }
      decoded->push_back(v);
      i += 4;
    } else if (e == '"' || e == '\\' || e == '/') {
      decoded->push_back(e);
    } else {
      return false;  // the escaper never writes the short forms
    }
  }
  return true;
}

TEST(JsonEscape, PlainAndQuotes) {
  EXPECT_EQ(Json(""), "\"\"");
  EXPECT_EQ(Json("sys.cpu.user"), "\"sys.cpu.user\"");
  EXPECT_EQ(Json("a\"b"), "\"a\\\"b\"");
  EXPECT_EQ(Json("a\\b"), "\"a\\\\b\"");
  EXPECT_EQ(Json("/"), "\"/\"");
}

TEST(JsonEscape, ControlCharacters) {
  EXPECT_EQ(Json(std::string_view("\0", 1)), "\"\\u0000\"");
  EXPECT_EQ(Json("\n\r\t\b\f"), "\"\\u000A\\u000D\\u0009\\u0008\\u000C\"");
  EXPECT_EQ(Json("\x1f"), "\"\\u001F\"");
  EXPECT_EQ(Json(" "), "\" \"");
  EXPECT_EQ(Json("\x7f"), "\"\x7f\"");  // DEL is valid JSON as it is
}

TEST(JsonEscape, Utf8PassesThrough) {
  EXPECT_EQ(Json("\xc3\xa9"), "\"\xc3\xa9\"");                  // é, 2 bytes
  EXPECT_EQ(Json("\xe2\x82\xac"), "\"\xe2\x82\xac\"");          // €, 3 bytes
  EXPECT_EQ(Json("\xf0\x9f\x98\x80"), "\"\xf0\x9f\x98\x80\"");  // U+1F600, 4 bytes
  EXPECT_EQ(Json("\xef\xbf\xbf"), "\"\xef\xbf\xbf\"");          // U+FFFF
  EXPECT_EQ(Json("\xf4\x8f\xbf\xbf"), "\"\xf4\x8f\xbf\xbf\"");  // U+10FFFF
}

TEST(JsonEscape, InvalidUtf8BecomesReplacement) {
  const std::string r = "\\ufffd";
  EXPECT_EQ(Json("\x80"), "\"" + r + "\"");                 // lone continuation
  EXPECT_EQ(Json("a\xc3"), "\"a" + r + "\"");               // truncated at the end
  EXPECT_EQ(Json("\xc3x"), "\"" + r + "x\"");               // truncated mid-string
  EXPECT_EQ(Json("\xc0\xaf"), "\"" + r + r + "\"");         // overlong '/'
  EXPECT_EQ(Json("\xe0\x80\xaf"), "\"" + r + r + r + "\""); // overlong 3-byte
  EXPECT_EQ(Json("\xed\xa0\x80"), "\"" + r + r + r + "\""); // surrogate D800
  EXPECT_EQ(Json("\xf4\x90\x80\x80"), "\"" + r + r + r + r + "\"");  // > U+10FFFF
  EXPECT_EQ(Json("\xff\xfe"), "\"" + r + r + "\"");
  EXPECT_EQ(Json("\xe2\x82"), "\"" + r + r + "\"");  // 2 of 3 bytes
}

TEST(JsonEscape, Utf8SequenceLength) {
  EXPECT_EQ(Utf8SequenceLength("a", 0), 1u);
  EXPECT_EQ(Utf8SequenceLength("\xc2\x80", 0), 2u);
  EXPECT_EQ(Utf8SequenceLength("\xc1\x80", 0), 0u);
  EXPECT_EQ(Utf8SequenceLength("\xe0\xa0\x80", 0), 3u);
  EXPECT_EQ(Utf8SequenceLength("\xf0\x90\x80\x80", 0), 4u);
  EXPECT_EQ(Utf8SequenceLength("\xf0\x90\x80", 0), 0u);
}

// Random bytes (biased toward the interesting ones) always give valid JSON
// that decodes to the input when the input was valid UTF-8, and otherwise to
// the input's valid sequences with U+FFFD for the other bytes.
TEST(JsonEscape, RandomBytesGiveValidJson) {
  const char* env = std::getenv("SUNDIAL_TEST_SEED");
  const uint32_t seed = env != nullptr ? static_cast<uint32_t>(std::strtoul(env, nullptr, 10))
                                       : std::random_device{}();
  std::printf("seed %u (set SUNDIAL_TEST_SEED to repeat)\n", seed);
  std::mt19937 rng(seed);
  static constexpr unsigned char kPicks[] = {0x00, 0x1f, '"', '\\', 0x7f, 0x80, 0xbf, 0xc0,
                                             0xc2, 0xdf, 0xe0, 0xed, 0xef, 0xf0, 0xf4, 0xff};
  for (int iter = 0; iter < 20000; ++iter) {
    std::string in(rng() % 12, '\0');
    for (char& c : in) {
      c = static_cast<char>(rng() % 2 ? kPicks[rng() % sizeof(kPicks)] : rng() % 256);
    }
    const std::string out = Json(in);
    std::u32string decoded;
    ASSERT_TRUE(ValidJsonString(out, &decoded)) << "seed " << seed << " iter " << iter;
    std::u32string expect;
    for (size_t i = 0; i < in.size();) {
      std::u32string one;
      size_t len = 1;
      while (len <= 4 && i + len <= in.size() && !DecodeUtf8(in.substr(i, len), &one)) ++len;
      if (len <= 4 && i + len <= in.size()) {
        expect += one;
        i += len;
      } else {
        expect.push_back(0xFFFD);
        ++i;
      }
    }
    ASSERT_EQ(decoded, expect) << "seed " << seed << " iter " << iter;
  }
}

}  // namespace
}  // namespace sundial
