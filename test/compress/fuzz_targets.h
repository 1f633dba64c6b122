// Fuzz targets for compress/: each takes arbitrary bytes and aborts on any
// misbehaviour (a crash, an out-of-bounds read under ASan, a wrong round
// trip). libFuzzer drives them through the *_fuzz.cc entry points; the
// unit test fuzz_smoke_test.cc feeds them random bytes in every test run.
#pragma once

#include <cstddef>
#include <cstdint>

namespace sundial::compress {

// Decodes data as a page, checking the iterator's invariants.
void FuzzPageDecode(const uint8_t* data, size_t size);
// Turns data into a point sequence, builds pages from it and checks that
// they decode to exactly those points.
void FuzzPageRoundTrip(const uint8_t* data, size_t size);
// Decompresses data as a zstd block, and round-trips it through the codec.
void FuzzZstd(const uint8_t* data, size_t size);

}  // namespace sundial::compress
