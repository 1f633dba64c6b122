// Internals of ExpRequest parsing shared by exp_request.cc (validation)
// and exp_request_json.cc (JSON reading and echo).
#pragma once

#include <optional>
#include <string_view>

#include "sundial/common/status.h"
#include "sundial/query/exp_request.h"

namespace sundial::query {

// Reads the JSON body into *out without validating it (Jackson's step).
Status ParseExpRequestJson(std::string_view body, ExpRequest* out);

// FillPolicy.fromString: none, zero, nan, null, scalar (any case).
bool ParseFillPolicyName(std::string_view name, FillPolicy* out);
// The policy's JSON name.
std::string_view FillPolicyName(FillPolicy p);

// NumericFillPolicy.validate: without a policy, value 0 means zero, NaN
// means nan and anything else scalar; none/nan/null must have NaN or 0
// (which becomes NaN) and zero must have 0.
Status ResolveFill(std::optional<FillPolicy> policy, double value, ExpFill* out);

}  // namespace sundial::query
