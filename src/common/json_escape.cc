#include "sundial/common/json_escape.h"

#include <cstdint>

namespace sundial {
namespace {

// Per byte: 0 copies as is, 1 needs an escape, 2 starts a multi-byte
// sequence (or is invalid) and needs a UTF-8 check.
constexpr uint8_t kCopy = 0, kEscape = 1, kHigh = 2;

struct ByteClasses {
  uint8_t c[256];
  constexpr ByteClasses() : c() {
    for (int i = 0; i < 256; ++i) {
      c[i] = i < 0x20 || i == '"' || i == '\\' ? kEscape : i >= 0x80 ? kHigh : kCopy;
    }
  }
};
constexpr ByteClasses kClasses;

void AppendEscape(unsigned char c, std::string* out) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  if (c == '"' || c == '\\') {
    const char buf[2] = {'\\', static_cast<char>(c)};
    out->append(buf, 2);
    return;
  }
  const char buf[6] = {'\\', 'u', '0', '0', kHex[c >> 4], kHex[c & 15]};
  out->append(buf, 6);
}

bool IsCont(unsigned char c) { return (c & 0xC0) == 0x80; }

}  // namespace

size_t Utf8SequenceLength(std::string_view s, size_t i) {
  const auto b = [&](size_t k) { return static_cast<unsigned char>(s[i + k]); };
  const unsigned char c = b(0);
  if (c < 0x80) return 1;
  const size_t left = s.size() - i;
  if (c >= 0xC2 && c <= 0xDF) return left >= 2 && IsCont(b(1)) ? 2 : 0;
  if (c >= 0xE0 && c <= 0xEF) {
    if (left < 3 || !IsCont(b(1)) || !IsCont(b(2))) return 0;
    if (c == 0xE0 && b(1) < 0xA0) return 0;   // overlong
    if (c == 0xED && b(1) >= 0xA0) return 0;  // surrogates
    return 3;
  }
  if (c >= 0xF0 && c <= 0xF4) {
    if (left < 4 || !IsCont(b(1)) || !IsCont(b(2)) || !IsCont(b(3))) return 0;
    if (c == 0xF0 && b(1) < 0x90) return 0;   // overlong
    if (c == 0xF4 && b(1) >= 0x90) return 0;  // above U+10FFFF
    return 4;
  }
  return 0;  // continuation byte, C0/C1 or F5..FF
}

void AppendJsonString(std::string_view s, std::string* out) {
  out->push_back('"');
  const size_t n = s.size();
  size_t run = 0;  // start of the bytes not yet appended
  size_t i = 0;
  while (i < n) {
    const auto c = static_cast<unsigned char>(s[i]);
    const uint8_t cls = kClasses.c[c];
    if (cls == kCopy) {
      ++i;
      continue;
    }
    if (cls == kHigh) {
      const size_t len = Utf8SequenceLength(s, i);
      if (len != 0) {
        i += len;
        continue;
      }
    }
    out->append(s.data() + run, i - run);
    if (cls == kEscape) {
      AppendEscape(c, out);
    } else {
      out->append("\\ufffd");
    }
    run = ++i;
  }
  out->append(s.data() + run, n - run);
  out->push_back('"');
}

}  // namespace sundial
