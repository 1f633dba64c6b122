// libFuzzer target: the JSON size and depth pre-scan (json_limits.h)
// against nlohmann::json. For every document nlohmann accepts, the
// pre-scan must agree with the real nesting depth: it accepts exactly the
// documents nested at most kDepth deep.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "sundial/query/json_limits.h"

namespace {

constexpr int kDepth = 6;

// Records the deepest nesting of a document without building it.
class DepthSax final : public nlohmann::json::json_sax_t {
 public:
  int max_depth = 0;
  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t&) override { return true; }
  bool string(string_t&) override { return true; }
  bool binary(binary_t&) override { return true; }
  bool start_object(std::size_t) override { return Open(); }
  bool end_object() override { return Close(); }
  bool start_array(std::size_t) override { return Open(); }
  bool end_array() override { return Close(); }
  bool key(string_t&) override { return true; }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override {
    return false;
  }

 private:
  bool Open() {
    if (++depth_ > max_depth) max_depth = depth_;
    return true;
  }
  bool Close() {
    --depth_;
    return true;
  }
  int depth_ = 0;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view body(reinterpret_cast<const char*>(data), size);
  // nlohmann ends the input at a NUL byte; the pre-scan reads on (and may
  // refuse what follows), which is stricter and fine.
  if (body.find('\0') != std::string_view::npos) return 0;
  const bool bounded = sundial::query::CheckJsonBounds(body, 1 << 20, kDepth).ok();
  DepthSax sax;
  if (!nlohmann::json::sax_parse(body.begin(), body.end(), &sax,
                                 nlohmann::json::input_format_t::json, true)) {
    return 0;  // malformed: the parser's to reject
  }
  if (bounded != (sax.max_depth <= kDepth)) std::abort();
  return 0;
}
