#include "sundial/ingest/remote_write.h"

#include <cstring>

#include <snappy.h>

namespace sundial::ingest {

namespace {

// Protobuf wire types.
constexpr uint32_t kVarint = 0;
constexpr uint32_t kFixed64 = 1;
constexpr uint32_t kLengthDelimited = 2;
constexpr uint32_t kFixed32 = 5;

// The start of an encoded Label whose name is "__name__": field 1, length 8.
constexpr std::string_view kNameLabelStart("\x0a\x08__name__", 10);

[[gnu::cold, gnu::noinline]] Status ErrorAt(std::string_view what, size_t offset) {
  return Status::InvalidArgument(std::string(what) + " at byte " + std::to_string(offset));
}

// A bounds-checked cursor over one protobuf message. Every read either
// succeeds or fails with a Status naming the offset in the whole message.
class WireReader {
 public:
  WireReader(std::string_view data, size_t base) : data_(data), base_(base) {}

  bool done() const { return pos_ >= data_.size(); }
  size_t offset() const { return base_ + pos_; }
  size_t pos() const { return pos_; }

  Status Varint(uint64_t* out) {
    if (pos_ < data_.size() && static_cast<uint8_t>(data_[pos_]) < 0x80) {  // one byte
      *out = static_cast<uint8_t>(data_[pos_++]);
      return Status::OK();
    }
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (pos_ >= data_.size()) return Error("truncated varint");
      const uint8_t b = static_cast<uint8_t>(data_[pos_++]);
      v |= static_cast<uint64_t>(b & 0x7f) << shift;
      if ((b & 0x80) == 0) {
        *out = v;
        return Status::OK();
      }
    }
    return Error("varint longer than 10 bytes");
  }

  // A field key: field number and wire type.
  Status Key(uint32_t* field, uint32_t* wire_type) {
    uint64_t key = 0;
    SUNDIAL_RETURN_IF_ERROR(Varint(&key));
    *wire_type = static_cast<uint32_t>(key & 7);
    const uint64_t number = key >> 3;
    if (number == 0 || number > 0x1fffffff) return Error("bad field number");
    *field = static_cast<uint32_t>(number);
    return Status::OK();
  }

  Status Fixed64(uint64_t* out) {
    if (data_.size() - pos_ < 8) return Error("truncated fixed64");
    uint64_t v = 0;
    for (int i = 7; i >= 0; --i) v = (v << 8) | static_cast<uint8_t>(data_[pos_ + i]);
    pos_ += 8;
    *out = v;
    return Status::OK();
  }

  // A length-delimited payload; *payload_offset is its offset in the whole
  // message.
  Status Bytes(std::string_view* out, size_t* payload_offset) {
    uint64_t len = 0;
    SUNDIAL_RETURN_IF_ERROR(Varint(&len));
    if (len > data_.size() - pos_) return Error("length-delimited field runs past its message");
    *payload_offset = offset();
    *out = data_.substr(pos_, static_cast<size_t>(len));
    pos_ += static_cast<size_t>(len);
    return Status::OK();
  }

  // Skips the value of a field of an unknown number.
  Status Skip(uint32_t wire_type) {
    uint64_t ignored = 0;
    std::string_view bytes;
    size_t at = 0;
    switch (wire_type) {
      case kVarint: return Varint(&ignored);
      case kFixed64: return Fixed64(&ignored);
      case kLengthDelimited: return Bytes(&bytes, &at);
      case kFixed32:
        if (data_.size() - pos_ < 4) return Error("truncated fixed32");
        pos_ += 4;
        return Status::OK();
      default: return Error("unsupported wire type " + std::to_string(wire_type));
    }
  }

  // The fast path of the hot loops: if the next field has the one-byte key
  // `key` (a length-delimited field below 16) and a one-byte length that
  // fits, consumes it and returns true; otherwise consumes nothing and the
  // caller takes the general path.
  bool ShortField(uint8_t key, std::string_view* payload, size_t* payload_offset) {
    const size_t left = data_.size() - pos_;
    if (left < 2 || static_cast<uint8_t>(data_[pos_]) != key) return false;
    const uint8_t len = static_cast<uint8_t>(data_[pos_ + 1]);
    if (len >= 0x80 || len > left - 2) return false;
    pos_ += 2;
    *payload_offset = offset();
    *payload = data_.substr(pos_, len);
    pos_ += len;
    return true;
  }

  // Requires a field of a known number to have the wire type the schema says.
  Status Expect(uint32_t wire_type, uint32_t want, const char* field) const {
    if (wire_type == want) return Status::OK();
    return Error(std::string("wrong wire type for ") + field);
  }

  Status Error(std::string_view what) const { return ErrorAt(what, offset()); }

 private:
  const std::string_view data_;
  const size_t base_;
  size_t pos_ = 0;
};

Status DecodeLabel(std::string_view msg, size_t base, RemoteLabel* out) {
  WireReader r(msg, base);
  *out = RemoteLabel();
  while (!r.done()) {
    uint32_t field = 0, type = 0;
    SUNDIAL_RETURN_IF_ERROR(r.Key(&field, &type));
    if (field == 1 || field == 2) {
      SUNDIAL_RETURN_IF_ERROR(r.Expect(type, kLengthDelimited, "Label.name/value"));
      size_t at = 0;
      SUNDIAL_RETURN_IF_ERROR(r.Bytes(field == 1 ? &out->name : &out->value, &at));
    } else {
      SUNDIAL_RETURN_IF_ERROR(r.Skip(type));
    }
  }
  return Status::OK();
}

// The usual encoding of a Sample: value (key 0x09, 8 bytes), then the
// timestamp (key 0x10, a varint that ends the message). True if msg is that
// and *out was filled.
bool DecodeUsualSample(std::string_view msg, RemoteSample* out) {
  if (msg.size() < 11 || msg[0] != '\x09' || msg[9] != '\x10') return false;
  uint64_t bits = 0;
  std::memcpy(&bits, msg.data() + 1, sizeof(bits));  // little-endian, as protobuf
  uint64_t ts = 0;
  size_t i = 10;
  for (int shift = 0; i < msg.size() && shift < 64; shift += 7) {
    const uint8_t b = static_cast<uint8_t>(msg[i++]);
    ts |= static_cast<uint64_t>(b & 0x7f) << shift;
    if ((b & 0x80) == 0) {
      if (i != msg.size()) return false;
      std::memcpy(&out->value, &bits, sizeof(bits));
      out->timestamp_ms = static_cast<int64_t>(ts);
      return true;
    }
  }
  return false;
}

Status DecodeSample(std::string_view msg, size_t base, RemoteSample* out) {
  if (DecodeUsualSample(msg, out)) return Status::OK();
  WireReader r(msg, base);
  *out = RemoteSample();
  while (!r.done()) {
    uint32_t field = 0, type = 0;
    SUNDIAL_RETURN_IF_ERROR(r.Key(&field, &type));
    if (field == 1) {
      SUNDIAL_RETURN_IF_ERROR(r.Expect(type, kFixed64, "Sample.value"));
      uint64_t bits = 0;
      SUNDIAL_RETURN_IF_ERROR(r.Fixed64(&bits));
      std::memcpy(&out->value, &bits, sizeof(bits));
    } else if (field == 2) {
      SUNDIAL_RETURN_IF_ERROR(r.Expect(type, kVarint, "Sample.timestamp"));
      uint64_t ts = 0;
      SUNDIAL_RETURN_IF_ERROR(r.Varint(&ts));
      out->timestamp_ms = static_cast<int64_t>(ts);  // two's complement, as int64 is sent
    } else {
      SUNDIAL_RETURN_IF_ERROR(r.Skip(type));
    }
  }
  return Status::OK();
}

// Walks one TimeSeries: delimits its label fields and decodes its samples
// into *samples.
Status DecodeTimeSeries(RemoteSeries* s, std::vector<RemoteSample>* samples) {
  WireReader r(s->message, s->offset);
  s->first_sample = samples->size();
  size_t begin = 0, end = 0, count = 0;
  bool other_since_label = false;
  while (!r.done()) {
    const size_t field_start = r.pos();
    std::string_view payload;
    size_t at = 0;
    if (count > 0 && !other_since_label && r.ShortField(0x0a, &payload, &at)) {
      ++count;  // one more label after the first: the common case
      end = r.pos();
      continue;
    }
    uint32_t field = 0, type = 0;
    SUNDIAL_RETURN_IF_ERROR(r.Key(&field, &type));
    if (field == 1) {
      SUNDIAL_RETURN_IF_ERROR(r.Expect(type, kLengthDelimited, "TimeSeries.labels"));
      SUNDIAL_RETURN_IF_ERROR(r.Bytes(&payload, &at));
      if (count++ == 0) {
        begin = field_start;
        if (payload.substr(0, kNameLabelStart.size()) == kNameLabelStart) {
          s->name_field = s->message.substr(field_start, r.pos() - field_start);
        }
      }
      if (other_since_label) s->contiguous = false;
      end = r.pos();
    } else if (field == 2) {
      SUNDIAL_RETURN_IF_ERROR(r.Expect(type, kLengthDelimited, "TimeSeries.samples"));
      SUNDIAL_RETURN_IF_ERROR(r.Bytes(&payload, &at));
      SUNDIAL_RETURN_IF_ERROR(DecodeSample(payload, at, &samples->emplace_back()));
      other_since_label = count > 0;
    } else {
      SUNDIAL_RETURN_IF_ERROR(r.Skip(type));  // exemplars, histograms, newer fields
      other_since_label = count > 0;
    }
  }
  s->num_samples = samples->size() - s->first_sample;
  if (!s->contiguous) {
    s->name_field = s->other_labels = std::string_view();
  } else {
    const size_t labels_begin = begin + s->name_field.size();
    s->other_labels = s->message.substr(labels_begin, end > labels_begin ? end - labels_begin : 0);
  }
  return Status::OK();
}

}  // namespace

Status WriteRequestView::DecodeLabels(const RemoteSeries& s, std::vector<RemoteLabel>* out) {
  out->clear();
  WireReader r(s.message, s.offset);
  while (!r.done()) {
    uint32_t field = 0, type = 0;
    SUNDIAL_RETURN_IF_ERROR(r.Key(&field, &type));
    if (field != 1) {
      SUNDIAL_RETURN_IF_ERROR(r.Skip(type));
      continue;
    }
    std::string_view payload;
    size_t at = 0;
    SUNDIAL_RETURN_IF_ERROR(r.Bytes(&payload, &at));
    SUNDIAL_RETURN_IF_ERROR(DecodeLabel(payload, at, &out->emplace_back()));
  }
  return Status::OK();
}

Status DecodeWriteRequest(std::string_view message, WriteRequestView* out) {
  out->series_.clear();
  out->samples_.clear();
  WireReader r(message, 0);
  while (!r.done()) {
    uint32_t field = 0, type = 0;
    SUNDIAL_RETURN_IF_ERROR(r.Key(&field, &type));
    if (field != 1) {
      SUNDIAL_RETURN_IF_ERROR(r.Skip(type));  // metadata and newer fields
      continue;
    }
    SUNDIAL_RETURN_IF_ERROR(r.Expect(type, kLengthDelimited, "WriteRequest.timeseries"));
    RemoteSeries& s = out->series_.emplace_back();
    SUNDIAL_RETURN_IF_ERROR(r.Bytes(&s.message, &s.offset));
    SUNDIAL_RETURN_IF_ERROR(DecodeTimeSeries(&s, &out->samples_));
  }
  return Status::OK();
}

Status SnappyUncompress(std::string_view compressed, uint64_t max_size, std::string* out) {
  size_t length = 0;
  if (!snappy::GetUncompressedLength(compressed.data(), compressed.size(), &length)) {
    return Status::InvalidArgument("bad snappy header");
  }
  if (length > max_size) {
    return Status::ResourceExhausted("uncompressed body of " + std::to_string(length) +
                                     " bytes exceeds the limit of " + std::to_string(max_size));
  }
  out->resize(length);
  if (!snappy::RawUncompress(compressed.data(), compressed.size(), out->data())) {
    out->clear();
    return Status::InvalidArgument("corrupt snappy data");
  }
  return Status::OK();
}

bool IsStaleMarker(double v) {
  uint64_t bits = 0;
  std::memcpy(&bits, &v, sizeof(bits));
  return bits == 0x7ff0000000000002ull;
}

}  // namespace sundial::ingest
