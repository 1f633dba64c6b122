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

// A bounds-checked cursor over one protobuf message. Every read either
// succeeds or fails with a Status naming the offset in the whole message.
class WireReader {
 public:
  WireReader(std::string_view data, size_t base) : data_(data), base_(base) {}

  bool done() const { return pos_ >= data_.size(); }
  size_t offset() const { return base_ + pos_; }
  size_t pos() const { return pos_; }

  Status Varint(uint64_t* out) {
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

  Status Error(std::string_view what) const {
    return Status::InvalidArgument(std::string(what) + " at byte " + std::to_string(offset()));
  }

 private:
  const std::string_view data_;
  const size_t base_;
  size_t pos_ = 0;
};

// Requires a field of a known number to have the wire type the schema says.
Status Expect(const WireReader& r, uint32_t wire_type, uint32_t want, const char* field) {
  if (wire_type == want) return Status::OK();
  return r.Error(std::string("wrong wire type for ") + field);
}

Status DecodeLabel(std::string_view msg, size_t base, RemoteLabel* out) {
  WireReader r(msg, base);
  *out = RemoteLabel();
  while (!r.done()) {
    uint32_t field = 0, type = 0;
    SUNDIAL_RETURN_IF_ERROR(r.Key(&field, &type));
    if (field == 1 || field == 2) {
      SUNDIAL_RETURN_IF_ERROR(Expect(r, type, kLengthDelimited, "Label.name/value"));
      size_t at = 0;
      SUNDIAL_RETURN_IF_ERROR(r.Bytes(field == 1 ? &out->name : &out->value, &at));
    } else {
      SUNDIAL_RETURN_IF_ERROR(r.Skip(type));
    }
  }
  return Status::OK();
}

Status DecodeSample(std::string_view msg, size_t base, RemoteSample* out) {
  WireReader r(msg, base);
  *out = RemoteSample();
  while (!r.done()) {
    uint32_t field = 0, type = 0;
    SUNDIAL_RETURN_IF_ERROR(r.Key(&field, &type));
    if (field == 1) {
      SUNDIAL_RETURN_IF_ERROR(Expect(r, type, kFixed64, "Sample.value"));
      uint64_t bits = 0;
      SUNDIAL_RETURN_IF_ERROR(r.Fixed64(&bits));
      std::memcpy(&out->value, &bits, sizeof(bits));
    } else if (field == 2) {
      SUNDIAL_RETURN_IF_ERROR(Expect(r, type, kVarint, "Sample.timestamp"));
      uint64_t ts = 0;
      SUNDIAL_RETURN_IF_ERROR(r.Varint(&ts));
      out->timestamp_ms = static_cast<int64_t>(ts);  // two's complement, as int64 is sent
    } else {
      SUNDIAL_RETURN_IF_ERROR(r.Skip(type));
    }
  }
  return Status::OK();
}

// Appends the series' labels and samples to the view's arrays.
Status DecodeTimeSeries(std::string_view msg, size_t base, RemoteSeries* s,
                        std::vector<RemoteLabel>* labels, std::vector<RemoteSample>* samples) {
  WireReader r(msg, base);
  s->first_label = labels->size();
  s->first_sample = samples->size();
  size_t label_begin = 0, label_end = 0;
  bool contiguous = true, other_since_label = false;
  while (!r.done()) {
    const size_t field_start = r.pos();
    uint32_t field = 0, type = 0;
    SUNDIAL_RETURN_IF_ERROR(r.Key(&field, &type));
    if (field == 1 || field == 2) {
      SUNDIAL_RETURN_IF_ERROR(
          Expect(r, type, kLengthDelimited, field == 1 ? "TimeSeries.labels" : "TimeSeries.samples"));
      std::string_view payload;
      size_t at = 0;
      SUNDIAL_RETURN_IF_ERROR(r.Bytes(&payload, &at));
      if (field == 1) {
        SUNDIAL_RETURN_IF_ERROR(DecodeLabel(payload, at, &labels->emplace_back()));
        if (labels->size() - s->first_label == 1) label_begin = field_start;
        if (other_since_label) contiguous = false;
        label_end = r.pos();
      } else {
        SUNDIAL_RETURN_IF_ERROR(DecodeSample(payload, at, &samples->emplace_back()));
        other_since_label = labels->size() > s->first_label;
      }
    } else {
      SUNDIAL_RETURN_IF_ERROR(r.Skip(type));  // exemplars, histograms, newer fields
      other_since_label = labels->size() > s->first_label;
    }
  }
  s->num_labels = labels->size() - s->first_label;
  s->num_samples = samples->size() - s->first_sample;
  s->labels_raw = contiguous ? msg.substr(label_begin, label_end - label_begin) : std::string_view();
  return Status::OK();
}

}  // namespace

Status DecodeWriteRequest(std::string_view message, WriteRequestView* out) {
  out->series_.clear();
  out->labels_.clear();
  out->samples_.clear();
  WireReader r(message, 0);
  while (!r.done()) {
    uint32_t field = 0, type = 0;
    SUNDIAL_RETURN_IF_ERROR(r.Key(&field, &type));
    if (field != 1) {
      SUNDIAL_RETURN_IF_ERROR(r.Skip(type));  // metadata and newer fields
      continue;
    }
    SUNDIAL_RETURN_IF_ERROR(Expect(r, type, kLengthDelimited, "WriteRequest.timeseries"));
    std::string_view payload;
    size_t at = 0;
    SUNDIAL_RETURN_IF_ERROR(r.Bytes(&payload, &at));
    SUNDIAL_RETURN_IF_ERROR(
        DecodeTimeSeries(payload, at, &out->series_.emplace_back(), &out->labels_, &out->samples_));
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
