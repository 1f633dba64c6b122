#include "sundial/ingest/import_parser.h"

#include <charconv>
#include <cstring>
#include <system_error>

#include <nlohmann/json.hpp>

namespace sundial::ingest {

namespace {

bool IsBlank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

bool HasWhitespace(std::string_view s) {
  for (char c : s) {
    if (c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\0') return true;
  }
  return false;
}

// The JSON value as put-line text: integers as integers, floats in the
// shortest form that reads back to the same double (with a '.' or an
// exponent, so the value stays a float), strings as they are.
bool AppendNumber(const nlohmann::json& v, std::string* out) {
  char buf[64];
  if (v.is_number_integer() || v.is_number_unsigned()) {
    const auto r = v.is_number_unsigned()
                       ? std::to_chars(buf, buf + sizeof(buf), v.get<uint64_t>())
                       : std::to_chars(buf, buf + sizeof(buf), v.get<int64_t>());
    out->append(buf, r.ptr);
    return true;
  }
  if (v.is_number_float()) {
    const auto r = std::to_chars(buf, buf + sizeof(buf), v.get<double>());
    const std::string_view text(buf, static_cast<size_t>(r.ptr - buf));
    out->append(text);
    if (text.find_first_of(".eEn") == std::string_view::npos) out->append(".0");
    return true;
  }
  if (v.is_string()) {
    const std::string& s = v.get_ref<const std::string&>();
    if (s.empty() || HasWhitespace(s)) return false;
    out->append(s);
    return true;
  }
  return false;
}

}  // namespace

bool ParseImportFormat(std::string_view name, ImportFormat* out) {
  if (name == "auto") *out = ImportFormat::kAuto;
  else if (name == "tsdb") *out = ImportFormat::kTsdb;
  else if (name == "put") *out = ImportFormat::kPut;
  else if (name == "json") *out = ImportFormat::kJson;
  else return false;
  return true;
}

const char* ImportFormatName(ImportFormat format) {
  switch (format) {
    case ImportFormat::kAuto: return "auto";
    case ImportFormat::kTsdb: return "tsdb";
    case ImportFormat::kPut: return "put";
    case ImportFormat::kJson: return "json";
  }
  return "auto";
}

bool JsonPointToPutLine(std::string_view object, std::string* put, std::string* error) {
  const nlohmann::json j = nlohmann::json::parse(object, nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    *error = "not a JSON object";
    return false;
  }
  const auto metric = j.find("metric");
  if (metric == j.end() || !metric->is_string() || metric->get_ref<const std::string&>().empty()) {
    *error = "missing or non-string \"metric\"";
    return false;
  }
  const std::string& m = metric->get_ref<const std::string&>();
  if (HasWhitespace(m)) {
    *error = "whitespace in metric name";
    return false;
  }
  put->assign("put ");
  put->append(m);
  put->push_back(' ');
  const auto ts = j.find("timestamp");
  const bool ts_ok = ts != j.end() && (ts->is_number_integer() || ts->is_number_unsigned() ||
                                       (ts->is_string() && !ts->get_ref<const std::string&>().empty() &&
                                        ts->get_ref<const std::string&>().find_first_not_of(
                                            "0123456789.") == std::string::npos));
  if (!ts_ok || !AppendNumber(*ts, put)) {
    *error = "missing or non-integer \"timestamp\"";
    return false;
  }
  put->push_back(' ');
  const auto value = j.find("value");
  if (value == j.end() || !AppendNumber(*value, put)) {
    *error = "missing or non-numeric \"value\"";
    return false;
  }
  const auto tags = j.find("tags");
  if (tags == j.end() || !tags->is_object()) {
    *error = "missing \"tags\" object";
    return false;
  }
  for (auto it = tags->begin(); it != tags->end(); ++it) {
    if (!it.value().is_string()) {
      *error = "tag \"" + it.key() + "\" has a non-string value";
      return false;
    }
    const std::string& v = it.value().get_ref<const std::string&>();
    if (HasWhitespace(it.key()) || HasWhitespace(v) || it.key().find('=') != std::string::npos) {
      *error = "whitespace or '=' in tag \"" + it.key() + "\"";
      return false;
    }
    put->push_back(' ');
    put->append(it.key());
    put->push_back('=');
    put->append(v);
  }
  return true;
}

ImportParser::ImportParser(ImportFormat format) : format_(format) {}

void ImportParser::Feed(std::string_view bytes) {
  Compact();
  buf_.append(bytes);
}

void ImportParser::Finish() { finished_ = true; }

void ImportParser::Compact() {
  if (pos_ > 0 && (pos_ >= buf_.size() || pos_ > (64u << 10))) {
    buf_.erase(0, pos_);
    pos_ = 0;
  }
}

bool ImportParser::Detect() {
  size_t i = pos_;
  while (i < buf_.size() && IsBlank(buf_[i])) ++i;
  if (i == buf_.size()) return false;
  if (buf_[i] == '[' || buf_[i] == '{') {
    format_ = ImportFormat::kJson;
    return true;
  }
  const size_t end = buf_.find_first_of(" \t\r\n", i);
  if (end == std::string::npos && !finished_) return false;  // first token incomplete
  const std::string_view first(buf_.data() + i, (end == std::string::npos ? buf_.size() : end) - i);
  format_ = first == "put" ? ImportFormat::kPut : ImportFormat::kTsdb;
  return true;
}

bool ImportParser::Next(ImportRecord* out) {
  if (format_ == ImportFormat::kAuto && !Detect()) return false;
  return format_ == ImportFormat::kJson ? NextJson(out) : NextLine(out);
}

bool ImportParser::FinishSkip() {
  const size_t nl = buf_.find('\n', pos_);
  if (nl == std::string::npos) {
    pos_ = buf_.size();
    return false;
  }
  pos_ = nl + 1;
  ++line_;
  skipping_ = false;
  return true;
}

bool ImportParser::NextLine(ImportRecord* out) {
  for (;;) {
    if (skipping_ && !FinishSkip()) return false;
    const size_t nl = buf_.find('\n', pos_);
    size_t end = nl;
    if (nl == std::string::npos) {
      if (buf_.size() - pos_ > kMaxRecordBytes) {
        out->line = line_;
        out->ok = false;
        out->error = "line longer than " + std::to_string(kMaxRecordBytes) + " bytes";
        skipping_ = true;
        pos_ = buf_.size();
        return true;
      }
      if (!finished_ || pos_ == buf_.size()) return false;
      end = buf_.size();
    }
    std::string_view line(buf_.data() + pos_, end - pos_);
    out->line = line_;
    pos_ = nl == std::string::npos ? end : end + 1;
    ++line_;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.size() > kMaxRecordBytes) {
      out->ok = false;
      out->error = "line longer than " + std::to_string(kMaxRecordBytes) + " bytes";
      return true;
    }
    size_t first = 0;
    while (first < line.size() && (line[first] == ' ' || line[first] == '\t')) ++first;
    if (first == line.size() || line[first] == '#') continue;
    if (line.find('\0') != std::string_view::npos) {
      out->ok = false;
      out->error = "NUL byte in line";
      return true;
    }
    if (format_ == ImportFormat::kPut) {
      if (line.substr(0, 4) != "put ") {
        out->ok = false;
        out->error = "not a put line";
        return true;
      }
      out->put.assign(line);
    } else {
      out->put.assign("put ");
      out->put.append(line);
    }
    out->ok = true;
    return true;
  }
}

bool ImportParser::NextJson(ImportRecord* out) {
  for (;;) {
    if (skipping_ && !FinishSkip()) return false;
    // Between objects: whitespace, commas and the brackets of arrays.
    while (pos_ < buf_.size()) {
      const char c = buf_[pos_];
      if (c == '\n') ++line_;
      else if (!(IsBlank(c) || c == ',' || c == '[' || c == ']')) break;
      ++pos_;
    }
    if (pos_ == buf_.size()) return false;
    out->line = line_;
    out->ok = false;
    if (buf_[pos_] != '{') {
      out->error = std::string("unexpected character '") + buf_[pos_] + "' (expected a JSON object)";
      skipping_ = true;
      return true;
    }
    // Finds the matching '}' outside strings.
    int depth = 0;
    bool in_string = false, escape = false;
    uint64_t newlines = 0;
    size_t i = pos_;
    for (; i < buf_.size(); ++i) {
      const char c = buf_[i];
      if (c == '\n') ++newlines;
      if (in_string) {
        if (escape) escape = false;
        else if (c == '\\') escape = true;
        else if (c == '"') in_string = false;
      } else if (c == '"') {
        in_string = true;
      } else if (c == '{' || c == '[') {
        ++depth;
      } else if ((c == '}' || c == ']') && --depth == 0) {
        break;
      }
      if (i - pos_ >= kMaxRecordBytes) break;
    }
    if (i < buf_.size() && i - pos_ < kMaxRecordBytes) {
      const std::string_view object(buf_.data() + pos_, i + 1 - pos_);
      out->ok = JsonPointToPutLine(object, &out->put, &out->error);
      pos_ = i + 1;
      line_ += newlines;
      return true;
    }
    if (i - pos_ >= kMaxRecordBytes) {
      out->error = "JSON object longer than " + std::to_string(kMaxRecordBytes) + " bytes";
      skipping_ = true;
      pos_ = i;
      line_ += newlines - (buf_[i] == '\n' ? 1 : 0);
      return true;
    }
    if (!finished_) return false;
    out->error = "unterminated JSON object";
    pos_ = buf_.size();
    return true;
  }
}

}  // namespace sundial::ingest
