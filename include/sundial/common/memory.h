// Handing freed heap memory back to the operating system.
//
// Why: glibc's malloc keeps freed chunks for reuse and returns only the top
// of each heap by itself, so after a burst (series created, a connection's
// caches freed, a large reply sent) RssAnon stays at the peak. On a 512 MB
// board that peak is what counts.
//
// Thread-safety: thread-safe (malloc takes its arena locks); it may stall
// other threads' malloc calls for the duration (about a millisecond per
// 100 MB of heap), so call it from a background thread, not per request.
#pragma once

#include <cstdint>

namespace sundial {

// The machine's physical memory in bytes (sysconf); 0 if unknown.
uint64_t PhysicalMemoryBytes();

// Returns whole free pages of every malloc arena to the OS
// (glibc malloc_trim). A no-op where the C library has no such call.
void ReleaseFreeMemory();

}  // namespace sundial
