// TimeZone: UTC offsets of an IANA zone, read from the system tz database.
//
// Why: OpenTSDB parses absolute dates and aligns calendar downsampling
// buckets ("1dc") in a Java TimeZone. Sundial reads the same rules from the
// TZif files under /usr/share/zoneinfo with its own small reader, so there
// is no process-wide TZ state (no setenv/tzset) and no mutable global.
//
// Limits (documented for users): only the transitions stored in the TZif
// file are used; after the last transition the last offset applies (the
// POSIX footer rule is not evaluated). Local times in a DST gap or overlap
// resolve with the smaller (standard) offset.
//
// Thread-safety: immutable after Load(); share freely.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "sundial/common/status.h"

namespace sundial::query {

class TimeZone {
 public:
  // The UTC zone.
  TimeZone() = default;

  // Loads zone `name` ("UTC", "Europe/Berlin", ...) from `zoneinfo_dir`.
  // InvalidArgument("Invalid timezone name: <name>") if the name is malformed
  // or no valid TZif file exists for it.
  static Status Load(std::string_view name, TimeZone* out,
                     std::string_view zoneinfo_dir = "/usr/share/zoneinfo");

  const std::string& name() const { return name_; }

  // Offset from UTC in seconds in force at utc_ms.
  int32_t OffsetAtUtc(int64_t utc_ms) const;
  // Converts a wall-clock time (ms since 1970-01-01T00:00 local) to UTC ms.
  int64_t LocalToUtc(int64_t local_ms) const;

 private:
  std::string name_ = "UTC";
  std::vector<int64_t> transitions_;   // UTC seconds, ascending
  std::vector<uint8_t> type_index_;    // per transition, index into offsets_
  std::vector<int32_t> offsets_;       // UT offsets in seconds, per type
  int32_t base_offset_ = 0;            // offset before the first transition
};

}  // namespace sundial::query
