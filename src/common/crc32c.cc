#include "sundial/common/crc32c.h"

#include <array>

namespace sundial::crc32c {
namespace {

// Slicing-by-4 tables for the reflected Castagnoli polynomial.
struct Tables {
  std::array<std::array<uint32_t, 256>, 4> t{};
  constexpr Tables() {
    for (uint32_t i = 0; i < 256; ++i) {
      uint32_t c = i;
      for (int k = 0; k < 8; ++k) c = (c & 1) ? (c >> 1) ^ 0x82f63b78u : c >> 1;
      t[0][i] = c;
    }
    for (uint32_t i = 0; i < 256; ++i) {
      for (int s = 1; s < 4; ++s) {
        t[s][i] = (t[s - 1][i] >> 8) ^ t[0][t[s - 1][i] & 0xff];
      }
    }
  }
};

constexpr Tables kTables;

#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
#define SUNDIAL_CRC32C_HW 1
// The SSE4.2 crc32 instruction computes exactly this CRC, about 10x faster
// than the tables; used when the CPU has it (checked once at run time).
__attribute__((target("sse4.2"))) uint32_t ExtendHw(uint32_t init, const char* data, size_t n) {
  const auto* p = reinterpret_cast<const unsigned char*>(data);
  uint32_t c = ~init;
  while (n >= 4) {
    uint32_t w = static_cast<uint32_t>(p[0]) | (static_cast<uint32_t>(p[1]) << 8) |
                 (static_cast<uint32_t>(p[2]) << 16) | (static_cast<uint32_t>(p[3]) << 24);
    c = __builtin_ia32_crc32si(c, w);
    p += 4;
    n -= 4;
  }
  while (n-- > 0) c = __builtin_ia32_crc32qi(c, *p++);
  return ~c;
}

bool HaveHw() {
  static const bool have = __builtin_cpu_supports("sse4.2");
  return have;
}
#endif

}  // namespace

uint32_t Extend(uint32_t init, const char* data, size_t n) {
#ifdef SUNDIAL_CRC32C_HW
  if (HaveHw()) return ExtendHw(init, data, n);
#endif
  const auto* p = reinterpret_cast<const unsigned char*>(data);
  uint32_t c = ~init;
  while (n >= 4) {
    c ^= static_cast<uint32_t>(p[0]) | (static_cast<uint32_t>(p[1]) << 8) |
         (static_cast<uint32_t>(p[2]) << 16) | (static_cast<uint32_t>(p[3]) << 24);
    c = kTables.t[3][c & 0xff] ^ kTables.t[2][(c >> 8) & 0xff] ^
        kTables.t[1][(c >> 16) & 0xff] ^ kTables.t[0][c >> 24];
    p += 4;
    n -= 4;
  }
  while (n-- > 0) c = kTables.t[0][(c ^ *p++) & 0xff] ^ (c >> 8);
  return ~c;
}

}  // namespace sundial::crc32c
