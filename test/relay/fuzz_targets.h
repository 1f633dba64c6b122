// Fuzz targets for the relay's parsers of untrusted bytes. Each is a
// libFuzzer entry point body (relay_*_fuzz.cc, built with -DSUNDIAL_FUZZ=ON)
// and is also run briefly on random and mutated inputs by
// fuzz_smoke_test.cc.
#pragma once

#include <cstddef>
#include <cstdint>

namespace sundial::relay {

// Input = bytes an upstream sent back: parsed whole, then fed in two
// pieces (as a socket may deliver it), with and without end of stream.
void FuzzHttpResponse(const uint8_t* data, size_t size);

// Input = a position file's contents.
void FuzzPosition(const uint8_t* data, size_t size);

// Input = a relay.targets value.
void FuzzTargetSpec(const uint8_t* data, size_t size);

}  // namespace sundial::relay
