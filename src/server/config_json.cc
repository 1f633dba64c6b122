#include "config_json.h"

#include <algorithm>
#include <cctype>

#include "sundial/common/json_escape.h"

namespace sundial::server {
namespace {

bool ContainsNoCase(std::string_view hay, std::string_view needle) {
  const auto it = std::search(hay.begin(), hay.end(), needle.begin(), needle.end(),
                              [](char a, char b) {
                                return std::tolower(static_cast<unsigned char>(a)) ==
                                       std::tolower(static_cast<unsigned char>(b));
                              });
  return it != hay.end();
}

// Masks the values of bearer= and basic= in a list of relay target URLs
// (relay/target_spec.h): each runs to the next '&', ',' or the end.
std::string MaskTargetCredentials(std::string_view list) {
  std::string out;
  out.reserve(list.size());
  size_t i = 0;
  while (i < list.size()) {
    bool masked = false;
    if (i > 0 && (list[i - 1] == '?' || list[i - 1] == '&')) {
      for (std::string_view p : {std::string_view("bearer="), std::string_view("basic=")}) {
        if (list.substr(i, p.size()) != p) continue;
        out.append(p);
        out.append(kMaskedValue);
        i += p.size();
        while (i < list.size() && list[i] != '&' && list[i] != ',') ++i;
        masked = true;
        break;
      }
    }
    if (!masked) out.push_back(list[i++]);
  }
  return out;
}

}  // namespace

std::string MaskedConfigValue(std::string_view key, std::string_view value) {
  if (key == "relay.targets") return MaskTargetCredentials(value);
  for (std::string_view secret : {"pass", "token", "secret"}) {
    if (ContainsNoCase(key, secret)) return value.empty() ? std::string() : std::string(kMaskedValue);
  }
  return std::string(value);
}

std::string ConfigJson(const Options& options) {
  // options.values is a sorted map: the keys come out sorted, as OpenTSDB's.
  std::string out = "{";
  for (const auto& [key, value] : options.values) {
    if (out.size() > 1) out.push_back(',');
    AppendJsonString(key, &out);
    out.push_back(':');
    AppendJsonString(MaskedConfigValue(key, value), &out);
  }
  out.push_back('}');
  return out;
}

}  // namespace sundial::server
