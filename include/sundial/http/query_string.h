// Decoding of URL paths and query strings.
//
// Rules (opentsdb-compat.md §3.3): application/x-www-form-urlencoded, i.e.
// "%XX" is a byte and '+' is a space (in the query string only, not in the
// path). A malformed escape ("%" not followed by two hex digits) is an error.
#pragma once

#include <string>
#include <string_view>

#include "sundial/common/status.h"
#include "sundial/http/request.h"

namespace sundial::http {

// Decodes "%XX" escapes, and '+' as space when plus_is_space. On error
// returns InvalidArgument and leaves *out unspecified.
Status PercentDecode(std::string_view in, bool plus_is_space, std::string* out);

// Splits "a=1&b=2&flag&a=3" into params, decoding keys and values. Empty
// pieces ("a=1&&b") are skipped; "flag" gives key "flag" with value "".
Status ParseQueryString(std::string_view query, QueryParams* params);

// Splits a request-target into decoded path and params.
Status ParseTarget(std::string_view target, std::string* path, QueryParams* params);

}  // namespace sundial::http
