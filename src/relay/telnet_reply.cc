#include "telnet_reply.h"

#include "sundial/common/ascii.h"

namespace sundial::relay {
namespace {

constexpr std::string_view kVersionHeader = "net.opentsdb.tools ";
constexpr std::string_view kVersionFooter = "Built on ";
constexpr std::string_view kStorageErrors[] = {"put: HBase error:", "put: Please throttle writes"};

}  // namespace

void TelnetReplyParser::StartBatch() {
  header_ = false;
  complete_ = false;
  error_lines_ = 0;
  storage_errors_ = 0;
  first_error_.clear();
  ParseLines();  // lines left from the previous batch
}

void TelnetReplyParser::Reset() {
  buf_.clear();
  StartBatch();
}

bool TelnetReplyParser::Feed(std::string_view bytes) {
  buf_.append(bytes);
  ParseLines();
  return complete_ || buf_.size() <= kMaxLine;  // what is left is one partial line
}

void TelnetReplyParser::ParseLines() {
  size_t pos = 0;
  while (!complete_) {
    const size_t nl = buf_.find('\n', pos);
    if (nl == std::string::npos) break;
    std::string_view line(buf_.data() + pos, nl - pos);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    pos = nl + 1;
    Line(line);
  }
  buf_.erase(0, pos);
}

void TelnetReplyParser::Line(std::string_view line) {
  if (header_ && StartsWith(line, kVersionFooter)) {
    complete_ = true;
    return;
  }
  header_ = StartsWith(line, kVersionHeader);
  if (header_) return;
  if (line.empty()) return;  // not an answer to anything
  ++error_lines_;
  if (first_error_.empty()) first_error_ = std::string(line.substr(0, kMaxErrorText));
  for (std::string_view e : kStorageErrors) {
    if (StartsWith(line, e)) ++storage_errors_;
  }
}

}  // namespace sundial::relay
