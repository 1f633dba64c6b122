#include "sundial/query/time_util.h"

#include <limits>
#include <string>

#include "sundial/common/ascii.h"
#include "sundial/common/parse_int.h"

namespace sundial::query {
namespace {

constexpr int64_t kDayMs = 86400000;

std::string Str(std::string_view s) { return std::string(s); }

bool AllDigits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

// Parses exactly `len` digits at s[pos].
bool Digits(std::string_view s, size_t pos, size_t len, int* out) {
  if (pos + len > s.size()) return false;
  int v = 0;
  for (size_t i = pos; i < pos + len; ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
    v = v * 10 + (s[i] - '0');
  }
  *out = v;
  return true;
}

Status ParseAbsolute(std::string_view s, const TimeZone& tz, Timestamp* out) {
  const Status invalid = Status::InvalidArgument("Invalid date: " + Str(s) + ". Unparseable date: \"" + Str(s) + "\"");
  if (s.size() != 10 && s.size() != 16 && s.size() != 19) {
    return Status::InvalidArgument("Invalid absolute date: " + Str(s));
  }
  int y = 0, mo = 0, d = 0, h = 0, mi = 0, sec = 0;
  if (!Digits(s, 0, 4, &y) || s[4] != '/' || !Digits(s, 5, 2, &mo) || s[7] != '/' ||
      !Digits(s, 8, 2, &d)) {
    return invalid;
  }
  if (s.size() >= 16) {
    if ((s[10] != '-' && s[10] != ' ') || !Digits(s, 11, 2, &h) || s[13] != ':' ||
        !Digits(s, 14, 2, &mi)) {
      return invalid;
    }
  }
  if (s.size() == 19 && (s[16] != ':' || !Digits(s, 17, 2, &sec))) return invalid;
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || sec > 59) return invalid;
  const int64_t days = DaysFromCivil(y, static_cast<unsigned>(mo), static_cast<unsigned>(d));
  const int64_t local = days * kDayMs + ((h * 60 + mi) * 60 + sec) * int64_t{1000};
  *out = tz.LocalToUtc(local);
  return Status::OK();
}

// Local wall-clock fields of a time.
struct Civil {
  int64_t y;
  unsigned mo, d;
  int64_t ms_of_day;
};

Civil ToCivil(int64_t local_ms) {
  int64_t days = local_ms / kDayMs;
  int64_t rem = local_ms % kDayMs;
  if (rem < 0) {
    rem += kDayMs;
    --days;
  }
  Civil c{};
  CivilFromDays(days, &c.y, &c.mo, &c.d);
  c.ms_of_day = rem;
  return c;
}

int64_t FromCivil(const Civil& c) { return DaysFromCivil(c.y, c.mo, c.d) * kDayMs + c.ms_of_day; }

unsigned DaysInMonth(int64_t y, unsigned m) {
  static constexpr unsigned kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  return m == 2 && leap ? 29 : kDays[m - 1];
}

int64_t FloorTo(int64_t v, int64_t unit) {
  int64_t r = v % unit;
  if (r < 0) r += unit;
  return v - r;
}

}  // namespace

int64_t DaysFromCivil(int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<int64_t>(doe) - 719468;
}

void CivilFromDays(int64_t z, int64_t* y, unsigned* m, unsigned* d) {
  z += 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const unsigned doe = static_cast<unsigned>(z - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  *d = doy - (153 * mp + 2) / 5 + 1;
  *m = mp < 10 ? mp + 3 : mp - 9;
  *y = static_cast<int64_t>(yoe) + era * 400 + (*m <= 2);
}

Status ParseDuration(std::string_view s, int64_t* ms) {
  const auto str = [s] { return std::string(s); };  // for error messages only
  if (s.empty()) return Status::InvalidArgument("Cannot parse null or empty duration");
  size_t unit = 0;
  while (unit < s.size() && s[unit] >= '0' && s[unit] <= '9') ++unit;
  if (unit >= s.size()) {
    return Status::InvalidArgument("Invalid duration, must have an integer and unit: " + str());
  }
  int64_t interval = 0;
  if (!ParseInt64(s.substr(0, unit), &interval)) {
    return Status::InvalidArgument("Invalid duration (number): " + str());
  }
  if (interval <= 0) return Status::InvalidArgument("Zero or negative duration: " + str());
  int64_t mult = 0;
  switch (AsciiLower(s.back())) {
    case 's':
      if (s.size() >= 2 && s[s.size() - 2] == 'm') {
        *ms = interval;
        return Status::OK();
      }
      mult = 1;
      break;
    case 'm': mult = 60; break;
    case 'h': mult = 3600; break;
    case 'd': mult = 86400; break;
    case 'w': mult = 86400 * 7; break;
    case 'n': mult = 86400 * 30; break;
    case 'y': mult = 86400 * 365; break;
    default: return Status::InvalidArgument("Invalid duration (suffix): " + str());
  }
  mult *= 1000;
  if (interval > std::numeric_limits<int64_t>::max() / mult) {
    return Status::InvalidArgument("Duration must be < Long.MAX_VALUE ms: " + str());
  }
  *ms = interval * mult;
  return Status::OK();
}

Status ParseDateTime(std::string_view s, Timestamp now_ms, const TimeZone& tz, Timestamp* out) {
  const auto str = [s] { return std::string(s); };  // for error messages only
  if (s.empty()) return Status::InvalidArgument("Invalid time: " + str() + ". Null or empty date");
  if (s.size() <= 18) {  // digits only, the common form: as the last branch below reads it
    int64_t v = 0;
    size_t i = 0;
    for (; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i) v = v * 10 + (s[i] - '0');
    if (i == s.size()) {
      *out = s.size() <= 10 ? v * 1000 : v;
      return Status::OK();
    }
  }
  if (EqualsNoCase(s, "now")) {
    *out = now_ms;
    return Status::OK();
  }
  if (s.size() > 4 && EqualsNoCase(s.substr(s.size() - 4), "-ago")) {
    int64_t d = 0;
    SUNDIAL_RETURN_IF_ERROR(ParseDuration(s.substr(0, s.size() - 4), &d));
    *out = now_ms - d;
    return Status::OK();
  }
  if (s.find('/') != std::string_view::npos || s.find(':') != std::string_view::npos) {
    return ParseAbsolute(s, tz, out);
  }
  if (s.size() > 2 && EqualsNoCase(s.substr(s.size() - 2), "ms") &&
      AllDigits(s.substr(0, s.size() - 2))) {
    int64_t v = 0;
    if (!ParseInt64(s.substr(0, s.size() - 2), &v)) {
      return Status::InvalidArgument("Invalid time: " + str() + ". For input string: \"" + str() +
                                     "\"");
    }
    *out = v;
    return Status::OK();
  }
  int64_t v = 0;
  if (s.find('.') != std::string_view::npos) {
    const bool dotted = s.size() >= 12 && s.size() <= 14 && AllDigits(s.substr(0, 10)) &&
                        s[10] == '.' && AllDigits(s.substr(11));
    if (!dotted) {
      return Status::InvalidArgument(
          "Invalid time: " + str() +
          ". Millisecond timestamps must be in the format <seconds>.<ms> where the milliseconds "
          "are limited to 3 digits");
    }
    char joined[16];  // the 10 digits before the dot and the 1-3 after it
    s.copy(joined, 10);
    s.substr(11).copy(joined + 10, s.size() - 11);
    if (!ParseInt64(std::string_view(joined, s.size() - 1), &v)) {
      return Status::InvalidArgument("Invalid time: " + str());
    }
  } else if (!ParseInt64(s, &v)) {
    return Status::InvalidArgument("Invalid time: " + str() + ". For input string: \"" + str() +
                                   "\"");
  }
  if (v < 0) {
    return Status::InvalidArgument("Invalid time: " + str() +
                                   ". Negative timestamps are not supported.");
  }
  if (s.size() <= 10) v *= 1000;
  *out = v;
  return Status::OK();
}

bool ParseCalendarUnit(std::string_view suffix, CalendarUnit* unit) {
  if (EqualsNoCase(suffix, "ms")) { *unit = CalendarUnit::kMillis; return true; }
  if (suffix.size() != 1) return false;
  switch (AsciiLower(suffix[0])) {
    case 's': *unit = CalendarUnit::kSecond; return true;
    case 'm': *unit = CalendarUnit::kMinute; return true;
    case 'h': *unit = CalendarUnit::kHour; return true;
    case 'd': *unit = CalendarUnit::kDay; return true;
    case 'w': *unit = CalendarUnit::kWeek; return true;
    case 'n': *unit = CalendarUnit::kMonth; return true;
    case 'y': *unit = CalendarUnit::kYear; return true;
    default: return false;
  }
}

int64_t AddCalendar(int64_t ts, CalendarUnit unit, int64_t n, const TimeZone& tz) {
  switch (unit) {
    case CalendarUnit::kMillis: return ts + n;
    case CalendarUnit::kSecond: return ts + n * 1000;
    case CalendarUnit::kMinute: return ts + n * 60000;
    case CalendarUnit::kHour: return ts + n * 3600000;
    default: break;
  }
  Civil c = ToCivil(ts + int64_t{tz.OffsetAtUtc(ts)} * 1000);
  if (unit == CalendarUnit::kDay || unit == CalendarUnit::kWeek) {
    const int64_t days = DaysFromCivil(c.y, c.mo, c.d) + (unit == CalendarUnit::kWeek ? 7 * n : n);
    CivilFromDays(days, &c.y, &c.mo, &c.d);
  } else {
    const int64_t months = c.y * 12 + (c.mo - 1) + (unit == CalendarUnit::kMonth ? n : 12 * n);
    c.y = months >= 0 ? months / 12 : (months - 11) / 12;
    c.mo = static_cast<unsigned>(months - c.y * 12) + 1;
    if (c.d > DaysInMonth(c.y, c.mo)) c.d = DaysInMonth(c.y, c.mo);
  }
  return tz.LocalToUtc(FromCivil(c));
}

int64_t PreviousInterval(int64_t ts, int interval, CalendarUnit unit, const TimeZone& tz) {
  const int64_t local = ts + int64_t{tz.OffsetAtUtc(ts)} * 1000;
  Civil c = ToCivil(local);
  CalendarUnit step_unit = unit;
  int64_t step = interval;
  int64_t anchor = 0;
  auto top_of_day = [&]() { c.ms_of_day = 0; };
  switch (unit) {
    case CalendarUnit::kMillis:
      anchor = 1000 % interval == 0 ? FloorTo(local, 1000) : FloorTo(local, 60000);
      anchor = tz.LocalToUtc(anchor);
      if (1000 % interval == 0 && interval > 1000) anchor -= interval;
      break;
    case CalendarUnit::kSecond:
      anchor = tz.LocalToUtc(60 % interval == 0 ? FloorTo(local, 60000) : FloorTo(local, 3600000));
      if (60 % interval == 0 && interval > 60) anchor -= int64_t{interval} * 1000;
      break;
    case CalendarUnit::kMinute:
      if (60 % interval == 0) {
        anchor = tz.LocalToUtc(FloorTo(local, 3600000));
        if (interval > 60) anchor -= int64_t{interval} * 60000;
      } else {
        top_of_day();
        anchor = tz.LocalToUtc(FromCivil(c));
      }
      break;
    case CalendarUnit::kHour:
      top_of_day();
      if (24 % interval != 0) c.d = 1;
      anchor = tz.LocalToUtc(FromCivil(c));
      if (24 % interval == 0 && interval > 24) anchor -= int64_t{interval} * 3600000;
      break;
    case CalendarUnit::kDay:
      top_of_day();
      c.d = 1;
      if (interval != 1) c.mo = 1;
      anchor = tz.LocalToUtc(FromCivil(c));
      break;
    case CalendarUnit::kWeek: {
      // Week starts on Sunday (Java's default US locale). Other counts than
      // 1 and 2 anchor at the Sunday on or before January 1st.
      top_of_day();
      if (2 % interval != 0) {
        c.mo = 1;
        c.d = 1;
      }
      const int64_t days = DaysFromCivil(c.y, c.mo, c.d);
      const int64_t weekday = ((days % 7) + 11) % 7;  // 0 = Sunday (1970-01-01 was a Thursday)
      CivilFromDays(days - weekday, &c.y, &c.mo, &c.d);
      anchor = tz.LocalToUtc(FromCivil(c));
      step_unit = CalendarUnit::kDay;
      step = 7;
      break;
    }
    case CalendarUnit::kMonth:
    case CalendarUnit::kYear:
      top_of_day();
      c.d = 1;
      c.mo = 1;
      anchor = tz.LocalToUtc(FromCivil(c));
      break;
  }
  if (anchor == ts) return anchor;
  int64_t cur = anchor;
  int64_t k = 0;
  // Step forward while <= ts, then one back (bounded: at most a few
  // thousand steps for any anchor above).
  while (AddCalendar(anchor, step_unit, (k + 1) * step, tz) <= ts) ++k;
  cur = AddCalendar(anchor, step_unit, k * step, tz);
  if (cur > ts) cur = anchor;  // anchor itself beyond ts (only for k == 0)
  return cur;
}

}  // namespace sundial::query
