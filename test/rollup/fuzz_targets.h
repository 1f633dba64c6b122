// Fuzz target for the parser of rollup day files (the bytes rollup/ reads
// back from disk). It is a libFuzzer entry point body (rollup_day_file_fuzz.cc,
// built with -DSUNDIAL_FUZZ=ON) and is also run briefly on mutated real files
// by fuzz_smoke_test.cc.
#pragma once

#include <cstddef>
#include <cstdint>

#include "sundial/common/types.h"

namespace sundial::rollup {

// The day every fuzz input is opened as (a file for another day is rejected
// by its header, so seeds are written for this one).
constexpr Timestamp kFuzzDay = Timestamp{19000} * 24 * 3600 * 1000;

// Input = a whole day file: written to a fresh temp dir, opened with
// DayFileReader and every block read. The input is also decoded as one
// block payload. Must never crash, whatever the bytes.
void FuzzDayFile(const uint8_t* data, size_t size);

}  // namespace sundial::rollup
