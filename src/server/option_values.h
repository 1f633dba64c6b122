// Parsers for option values (sizes, durations, booleans, integers).
// Each returns InvalidArgument with a message that says what was expected.
#pragma once

#include <chrono>
#include <cstdint>
#include <string_view>

#include "sundial/common/status.h"

namespace sundial::server {

// Decimal integer in [min, max].
Status ParseUint(std::string_view text, uint64_t min, uint64_t max, uint64_t* out);
// "512", "64KiB", "64MiB", "1GiB" (K, KB, KiB, ... all 1024-based), in [min, max].
Status ParseBytes(std::string_view text, uint64_t min, uint64_t max, uint64_t* out);
// "0", "250ms", "30s", "5m", "1h", "1d", "1w".
Status ParseDuration(std::string_view text, std::chrono::milliseconds* out);
// true/false, yes/no, on/off, 1/0 (case-insensitive).
Status ParseBool(std::string_view text, bool* out);

}  // namespace sundial::server
