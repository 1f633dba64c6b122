// Bounds on a JSON request body, checked before a DOM parser allocates
// anything for it.
//
// Why a pre-scan: nlohmann::json builds a node (with a heap-allocated
// container) for every '[' or '{', so a few KB of gzip that inflate to
// "[[[[..." cost about 100 bytes of heap per input byte, and its
// destruction recurses. One linear pass over the bytes, without
// allocating, rejects such bodies for the price of a memchr.
//
// Thread-safety: pure functions.
#pragma once

#include <cstddef>
#include <string_view>

#include "sundial/common/status.h"

namespace sundial::query {

// Largest JSON body of /api/query, /api/query/last, /api/search/lookup and
// /api/suggest: real queries are a few KB (even 1000 sub-queries fit), and
// a DOM costs up to ~15 bytes of heap per input byte, so 1 MiB keeps one
// request's parse under ~16 MB on a 512 MB Pi.
inline constexpr size_t kMaxRequestJsonBytes = 1 << 20;
// Deepest nesting of arrays and objects: a query body needs 4.
inline constexpr int kMaxRequestJsonDepth = 32;

// InvalidArgument ("Unable to parse the given JSON" with the reason as
// details, see SplitErrorDetails) if body is longer than max_bytes or nests
// arrays/objects deeper than max_depth. Strings are skipped (brackets in
// them do not count); the rest of the grammar is left to the parser.
Status CheckJsonBounds(std::string_view body, size_t max_bytes = kMaxRequestJsonBytes,
                       int max_depth = kMaxRequestJsonDepth);

}  // namespace sundial::query
