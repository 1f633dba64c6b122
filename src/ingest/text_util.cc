#include "ingest/text_util.h"

#include <algorithm>
#include <iterator>

namespace sundial::ingest {
namespace {

struct Range {
  uint32_t lo;
  uint32_t hi;  // inclusive
};

// Letter ranges (general categories Lu, Ll, Lt, Lm, Lo) of the Latin,
// Greek, Cyrillic, Armenian, Hebrew, Arabic, Devanagari, Thai, Georgian,
// Hangul, Kana, Bopomofo and CJK blocks, sorted.
constexpr Range kLetters[] = {
    {0xAA, 0xAA},       {0xB5, 0xB5},       {0xBA, 0xBA},       {0xC0, 0xD6},
    {0xD8, 0xF6},       {0xF8, 0x2C1},      {0x2C6, 0x2D1},     {0x2E0, 0x2E4},
    {0x2EC, 0x2EC},     {0x2EE, 0x2EE},     {0x370, 0x374},     {0x376, 0x377},
    {0x37A, 0x37D},     {0x37F, 0x37F},     {0x386, 0x386},     {0x388, 0x38A},
    {0x38C, 0x38C},     {0x38E, 0x3A1},     {0x3A3, 0x3F5},     {0x3F7, 0x481},
    {0x48A, 0x52F},     {0x531, 0x556},     {0x559, 0x559},     {0x560, 0x588},
    {0x5D0, 0x5EA},     {0x5EF, 0x5F2},     {0x620, 0x64A},     {0x66E, 0x66F},
    {0x671, 0x6D3},     {0x6D5, 0x6D5},     {0x904, 0x939},     {0x93D, 0x93D},
    {0x950, 0x950},     {0x958, 0x961},     {0xE01, 0xE30},     {0xE32, 0xE33},
    {0xE40, 0xE46},     {0x10A0, 0x10C5},   {0x10D0, 0x10FA},   {0x10FC, 0x1248},
    {0x1E00, 0x1F15},   {0x1F18, 0x1F1D},   {0x1F20, 0x1F45},   {0x1F48, 0x1F4D},
    {0x1F50, 0x1F57},   {0x1F59, 0x1F7D},   {0x1F80, 0x1FB4},   {0x1FB6, 0x1FBC},
    {0x1FC2, 0x1FC4},   {0x1FC6, 0x1FCC},   {0x1FD0, 0x1FD3},   {0x1FD6, 0x1FDB},
    {0x1FE0, 0x1FEC},   {0x1FF2, 0x1FF4},   {0x1FF6, 0x1FFC},   {0x3005, 0x3006},
    {0x3031, 0x3035},   {0x303B, 0x303C},   {0x3041, 0x3096},   {0x309D, 0x309F},
    {0x30A1, 0x30FA},   {0x30FC, 0x30FF},   {0x3105, 0x312F},   {0x3131, 0x318E},
    {0x31A0, 0x31BF},   {0x31F0, 0x31FF},   {0x3400, 0x4DBF},   {0x4E00, 0x9FFF},
    {0xA000, 0xA48C},   {0xAC00, 0xD7A3},   {0xF900, 0xFA6D},   {0xFA70, 0xFAD9},
    {0xFF21, 0xFF3A},   {0xFF41, 0xFF5A},   {0xFF66, 0xFFBE},   {0x20000, 0x2A6DF},
    {0x2A700, 0x2EBE0}, {0x2F800, 0x2FA1D}, {0x30000, 0x3134A},
};

}  // namespace

size_t DecodeChar(std::string_view s, size_t i, uint32_t* cp) {
  const auto b0 = static_cast<unsigned char>(s[i]);
  *cp = b0;
  if (b0 < 0x80) return 1;
  size_t len;
  uint32_t v;
  uint32_t min;
  if ((b0 & 0xE0) == 0xC0) {
    len = 2, v = b0 & 0x1F, min = 0x80;
  } else if ((b0 & 0xF0) == 0xE0) {
    len = 3, v = b0 & 0x0F, min = 0x800;
  } else if ((b0 & 0xF8) == 0xF0) {
    len = 4, v = b0 & 0x07, min = 0x10000;
  } else {
    return 1;
  }
  if (i + len > s.size()) return 1;
  for (size_t k = 1; k < len; ++k) {
    const auto b = static_cast<unsigned char>(s[i + k]);
    if ((b & 0xC0) != 0x80) return 1;
    v = (v << 6) | (b & 0x3F);
  }
  if (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF)) return 1;
  *cp = v;
  return len;
}

void AppendUtf8(uint32_t cp, std::string* out) {
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

int32_t JavaStringHash(std::string_view s) {
  uint32_t h = 0;  // Java int arithmetic wraps; unsigned keeps that defined
  for (size_t i = 0; i < s.size();) {
    uint32_t cp;
    i += DecodeChar(s, i, &cp);
    if (cp < 0x10000) {
      h = 31 * h + cp;
    } else {
      const uint32_t c = cp - 0x10000;
      h = 31 * h + (0xD800 + (c >> 10));
      h = 31 * h + (0xDC00 + (c & 0x3FF));
    }
  }
  return static_cast<int32_t>(h);
}

bool IsUnicodeLetter(uint32_t cp) {
  const auto* end = std::end(kLetters);
  const auto* it = std::upper_bound(std::begin(kLetters), end, cp,
                                    [](uint32_t c, const Range& r) { return c < r.lo; });
  if (it == std::begin(kLetters)) return false;
  --it;
  return cp <= it->hi;
}

}  // namespace sundial::ingest
