// Series selection helpers shared by the query engine and the exporter.
#pragma once

#include "sundial/query/query_spec.h"
#include "sundial/storage/storage.h"

namespace sundial::query {

// True if the series passes every filter of q (and, with explicit_tags,
// has no other tag key).
bool PassesFilters(const SubQuery& q, const storage::SeriesKeyRef& key);

}  // namespace sundial::query
