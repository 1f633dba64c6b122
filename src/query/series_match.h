// Series selection helpers shared by the query engine and the exporter.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "series_source.h"
#include "sundial/query/query_spec.h"
#include "sundial/storage/storage.h"

namespace sundial::query {

// The value of tag key tagk in key, or null when the series lacks it. The
// pointer borrows from key.
const std::string_view* TagValue(const storage::SeriesKeyRef& key, std::string_view tagk);

// True if the series passes every filter of q (and, with explicit_tags,
// has no other tag key).
bool PassesFilters(const SubQuery& q, const storage::SeriesKeyRef& key);

// Validates the tag keys of q's filters and the literals of its literal_or
// filters the way OpenTSDB resolves UIDs: InvalidArgument "No such name"
// for the first unknown one.
Status CheckNames(storage::Storage* st, const SubQuery& q);

// Resolves q's TSUIDs: *metric is the metric whose UID the first TSUID
// starts with, and its series whose TSUID is in q.tsuids are appended to
// *ids (TSUIDs of other metrics match nothing). InvalidArgument for a
// malformed first TSUID or an unknown metric UID. Each name and series
// looked at is charged to budget as work.
// REQUIRES: !q.tsuids.empty().
Status ResolveTsuids(storage::Storage* st, const SubQuery& q, QueryBudget* budget,
                     std::string* metric, std::vector<SeriesId>* ids);

}  // namespace sundial::query
