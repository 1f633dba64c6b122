// What this process made the kernel write to storage, for users watching
// the wear of an SD card: /proc/self/io's write_bytes counts every byte of
// page cache the process made dirty (4 KiB each time a clean page becomes
// dirty) plus direct writes, whoever later writes it back.
//
// Thread-safety: free functions without shared state.
#pragma once

#include <cstdint>
#include <string_view>

namespace sundial::server {

// The write_bytes figure of a /proc/<pid>/io text ("write_bytes: 123"
// line). False if there is no such line or its number is malformed.
bool ParseProcIoWriteBytes(std::string_view text, uint64_t* out);

// write_bytes of this process. False where /proc/self/io cannot be read
// (not Linux, no procfs, or a kernel without task I/O accounting).
bool ProcessWriteBytes(uint64_t* out);

}  // namespace sundial::server
