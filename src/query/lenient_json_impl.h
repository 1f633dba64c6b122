// Jackson-style lenient reading of JSON request bodies, shared by the
// /api/query parser (query_json.cc) and the /api/query/exp parser
// (exp_request_json.cc): scalars are coerced between strings, numbers and
// booleans the way OpenTSDB's Jackson mapper does, and errors carry
// OpenTSDB's "Unable to parse the given JSON" message.
//
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "sundial/common/status.h"

namespace sundial::query {

// Insertion order kept, so that repeated keys resolve last-wins like
// Jackson's setters.
using LenientJson = nlohmann::ordered_json;

// InvalidArgument "Unable to parse the given JSON" with details after
// kDetailsSeparator.
Status JsonError(const std::string& details);
// JsonError("Cannot deserialize field '<name>'").
Status FieldError(const std::string& name);

// InvalidArgument "Missing message content" (with OpenTSDB's details) when
// body is empty or only whitespace.
Status CheckBodyNotBlank(std::string_view body);

// How a JSON float becomes text in LenientString.
enum class DoubleText {
  kJava,   // Java's Double.toString (JavaDoubleToString)
  kFixed,  // shortest fixed notation, no exponent
};

// Each Lenient* function returns false on a value it cannot coerce and
// leaves *out as it was; a JSON null is never written to *out.

// A string as is; integers in decimal; floats per `floats`; booleans as
// "true"/"false". Null and containers are not coerced.
bool LenientString(const LenientJson& j, DoubleText floats, std::string* out);
// A boolean; a string "true"/"false"/"" (any case, "" is false); a
// number (nonzero is true). Null is accepted and leaves *out unchanged.
bool LenientBool(const LenientJson& j, bool* out);
// An integer, read as int64; a float truncated toward zero and clamped to
// the int64 range (NaN refused); a string holding exactly a decimal
// integer.
bool LenientInt64(const LenientJson& j, int64_t* out);
// A number; a string holding exactly a number or "NaN". Null is accepted
// and leaves *out unchanged.
bool LenientDouble(const LenientJson& j, double* out);

}  // namespace sundial::query
