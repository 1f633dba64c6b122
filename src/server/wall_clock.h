// The wall clock as the request handlers read it: "now" for relative
// times in queries and for points sent without a timestamp.
//
// Thread-safety: pure function.
#pragma once

#include <chrono>
#include <cstdint>

namespace sundial::server {

// Milliseconds since the Unix epoch (system_clock; not monotonic).
inline int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace sundial::server
