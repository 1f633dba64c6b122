// Time strings, durations and calendar arithmetic with OpenTSDB's rules
// (opentsdb-compat.md §5.1, §5.6).
//
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <string_view>

#include "sundial/common/status.h"
#include "sundial/common/types.h"
#include "sundial/query/time_zone.h"

namespace sundial::query {

// Parses "<n><unit>" (units ms, s, m, h, d, w, n = 30 days, y = 365 days;
// only the last character, or "ms", decides the unit) into milliseconds.
// Errors carry OpenTSDB's messages ("Invalid duration (suffix): 1x", ...).
Status ParseDuration(std::string_view s, int64_t* ms);

// Parses a start/end time: "now", "<duration>-ago", "<digits>ms",
// "yyyy/MM/dd[-| ]HH:mm[:ss]" in tz, seconds (<= 10 chars) or ms numbers,
// and "<10 digits>.<1-3 digits>" (the dot is removed; OpenTSDB's quirk).
// now_ms is the current time. Result in epoch ms.
Status ParseDateTime(std::string_view s, Timestamp now_ms, const TimeZone& tz, Timestamp* out);

// Calendar units of calendar downsampling ("1dc", "1nc", ...).
enum class CalendarUnit : uint8_t { kMillis, kSecond, kMinute, kHour, kDay, kWeek, kMonth, kYear };

// Maps a unit suffix (ms, s, m, h, d, w, n, y; case-insensitive) to a unit.
bool ParseCalendarUnit(std::string_view suffix, CalendarUnit* unit);

// Start of the calendar bucket containing ts (OpenTSDB's
// DateTime.previousInterval): anchored at the top of the next larger unit
// when the interval divides it evenly, else at the top of the unit above.
// REQUIRES: ts >= 0, interval >= 1.
int64_t PreviousInterval(int64_t ts, int interval, CalendarUnit unit, const TimeZone& tz);

// ts plus n units (Java Calendar.add): time units add exact durations,
// day/week/month/year units move the wall clock and keep the local time of
// day; months clamp the day of month. Weeks add 7*n days.
int64_t AddCalendar(int64_t ts, CalendarUnit unit, int64_t n, const TimeZone& tz);

// Civil date helpers (proleptic Gregorian), exposed for tests.
int64_t DaysFromCivil(int64_t y, unsigned m, unsigned d);
void CivilFromDays(int64_t z, int64_t* y, unsigned* m, unsigned* d);

}  // namespace sundial::query
