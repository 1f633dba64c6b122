// CRC-32C (Castagnoli), used by every checksummed record on disk.
//
// Thread-safety: pure functions over constant tables.
#pragma once

#include <cstddef>
#include <cstdint>

namespace sundial::crc32c {

// Returns the CRC-32C of data[0, n) continued from a previous crc `init`
// (0 for a fresh checksum).
uint32_t Extend(uint32_t init, const char* data, size_t n);
inline uint32_t Value(const char* data, size_t n) { return Extend(0, data, n); }

// Masks a CRC stored next to the data it covers, so that a CRC of data that
// itself holds CRCs does not degenerate (as LevelDB does).
inline uint32_t Mask(uint32_t crc) {
  return ((crc >> 15) | (crc << 17)) + 0xa282ead8u;
}
inline uint32_t Unmask(uint32_t masked) {
  const uint32_t rot = masked - 0xa282ead8u;
  return (rot >> 17) | (rot << 15);
}

}  // namespace sundial::crc32c
