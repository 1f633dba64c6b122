#include "storage/cold_block.h"

#include <algorithm>

#include "sundial/common/coding.h"
#include "sundial/common/decimal.h"

namespace sundial::storage {
namespace {

enum Kind : uint8_t { kInt = 0, kDecimal = 1, kXor = 2 };

uint64_t Wrap(int64_t v) { return static_cast<uint64_t>(v); }
int64_t Diff(int64_t a, int64_t b) { return static_cast<int64_t>(Wrap(a) - Wrap(b)); }
int64_t Add(int64_t a, int64_t b) { return static_cast<int64_t>(Wrap(a) + Wrap(b)); }

// The fewest bytes that hold every value of u.
uint8_t ByteWidth(const std::vector<uint64_t>& u) {
  uint64_t all = 0;
  for (uint64_t x : u) all |= x;
  uint8_t w = 0;
  while (all != 0) {
    ++w;
    all >>= 8;
  }
  return w;
}

void PutPlanes(const std::vector<uint64_t>& u, uint8_t w, compress::ZstdCodec* zstd,
               std::string* out) {
  if (u.empty()) return;
  std::string plane(u.size(), '\0');
  std::string packed;
  for (uint8_t j = 0; j < w; ++j) {
    for (size_t i = 0; i < u.size(); ++i) plane[i] = static_cast<char>(u[i] >> (8 * j));
    packed.clear();
    if (zstd->Compress(plane, &packed).ok() && packed.size() < plane.size()) {
      PutVarint32(out, static_cast<uint32_t>(packed.size()));
      out->append(packed);
    } else {
      PutVarint32(out, 0);
      out->append(plane);
    }
  }
}

bool GetPlanes(std::string_view* in, size_t n, uint8_t w, compress::ZstdCodec* zstd,
               std::vector<uint64_t>* u) {
  if (w > 8) return false;
  u->clear();
  if (w == 0) u->resize(n);
  if (n == 0 || w == 0) return true;
  std::string plane;
  for (uint8_t j = 0; j < w; ++j) {
    uint32_t len = 0;
    if (!GetVarint32(in, &len)) return false;
    std::string_view bytes;
    if (len == 0) {
      if (in->size() < n) return false;
      bytes = in->substr(0, n);
      in->remove_prefix(n);
    } else {
      if (in->size() < len || !zstd->Decompress(in->substr(0, len), n, &plane).ok() ||
          plane.size() != n) {
        return false;
      }
      in->remove_prefix(len);
      bytes = plane;
    }
    const auto* b = reinterpret_cast<const unsigned char*>(bytes.data());
    if (j == 0) {
      u->assign(b, b + n);  // the low bytes: no zero-fill, no second pass
      continue;
    }
    uint64_t* x = u->data();
    for (size_t i = 0; i < n; ++i) x[i] |= uint64_t{b[i]} << (8 * j);
  }
  return true;
}

// The value kind for points: the native type of most values, decimal at
// the smallest scale that holds most floats when that keeps exceptions
// rare.
void ChooseKind(const std::vector<Sample>& points, Kind* kind, int* scale) {
  size_t ints = 0;
  int counts[kMaxDecimalScale + 1] = {};  // floats whose smallest scale is s
  size_t floats = 0;
  for (const Sample& p : points) {
    if (p.v.is_int()) {
      ++ints;
      continue;
    }
    ++floats;
    int64_t m = 0;
    const int s = MinDecimalScale(p.v.float_value(), 0, kMaxDecimalScale, &m);
    if (s >= 0) ++counts[s];
  }
  *scale = 0;
  if (ints >= floats) {
    *kind = kInt;
    return;
  }
  // The smallest scale that covers all but 1/16 of the floats.
  size_t covered = 0;
  for (int s = 0; s <= kMaxDecimalScale; ++s) {
    covered += static_cast<size_t>(counts[s]);
    if (covered > 0 && covered >= points.size() - points.size() / 16) {
      *kind = kDecimal;
      *scale = s;
      return;
    }
  }
  *kind = kXor;
}

void EncodeTimestamps(const std::vector<Sample>& points, Timestamp start, std::string* out) {
  PutVarint64(out, ZigZagEncode64(Diff(points[0].t, start)));
  if (points.size() == 1) return;
  const int64_t step = Diff(points[1].t, points[0].t);
  PutVarint64(out, ZigZagEncode64(step));
  std::string ex;
  uint32_t k = 0;
  size_t prev = 0;
  for (size_t i = 1; i < points.size(); ++i) {
    const int64_t delta = Diff(points[i].t, points[i - 1].t);
    if (delta == step) continue;
    PutVarint32(&ex, static_cast<uint32_t>(i - prev));
    PutVarint64(&ex, ZigZagEncode64(Diff(delta, step)));
    prev = i;
    ++k;
  }
  PutVarint32(out, k);
  out->append(ex);
}

}  // namespace

void EncodeColdBlock(const std::vector<Sample>& points, Timestamp partition_start,
                     compress::ZstdCodec* zstd, std::string* out, ColdBlockStats* stats) {
  const size_t at0 = out->size();
  PutVarint32(out, static_cast<uint32_t>(points.size()));
  const size_t at1 = out->size();
  EncodeTimestamps(points, partition_start, out);
  const size_t at2 = out->size();

  Kind kind = kInt;
  int scale = 0;
  ChooseKind(points, &kind, &scale);
  out->push_back(static_cast<char>(kind));
  if (kind == kDecimal) out->push_back(static_cast<char>(scale));
  const size_t at3 = out->size();
  // Native values as integers (mantissas or bits); the rest are exceptions.
  std::vector<uint64_t> native;
  native.reserve(points.size());
  std::string ex;
  uint32_t k = 0;
  size_t next = 0;  // index after the previous exception
  for (size_t i = 0; i < points.size(); ++i) {
    const Value& v = points[i].v;
    int64_t m = 0;
    bool fits = false;
    if (kind == kInt) {
      fits = v.is_int();
      m = fits ? v.int_value() : 0;
    } else if (kind == kDecimal) {
      fits = !v.is_int() && DecimalFits(v.float_value(), scale, &m);
    } else {
      fits = !v.is_int();
      m = fits ? static_cast<int64_t>(DoubleToBits(v.float_value())) : 0;
    }
    if (fits) {
      native.push_back(static_cast<uint64_t>(m));
      continue;
    }
    PutVarint32(&ex, static_cast<uint32_t>(i - next));
    ex.push_back(v.is_int() ? 0 : 1);
    PutFixed64(&ex, v.is_int() ? static_cast<uint64_t>(v.int_value())
                               : DoubleToBits(v.float_value()));
    next = i + 1;
    ++k;
  }
  PutVarint32(out, k);
  out->append(ex);
  const size_t at4 = out->size();
  if (kind == kXor) {
    uint64_t prev = 0;
    for (uint64_t& x : native) {
      const uint64_t bits = x;
      x ^= prev;
      prev = bits;
    }
    PutPlanes(native, 8, zstd, out);
  } else if (!native.empty()) {
    // The first value, then the deltas minus their minimum: a counter's
    // increments stay unsigned and small.
    PutVarint64(out, ZigZagEncode64(static_cast<int64_t>(native[0])));
    int64_t base = 0;
    for (size_t i = 1; i < native.size(); ++i) {
      const int64_t d = Diff(static_cast<int64_t>(native[i]), static_cast<int64_t>(native[i - 1]));
      base = i == 1 ? d : std::min(base, d);
    }
    std::vector<uint64_t> deltas(native.size() - 1);
    for (size_t i = 1; i < native.size(); ++i) {
      const int64_t d = Diff(static_cast<int64_t>(native[i]), static_cast<int64_t>(native[i - 1]));
      deltas[i - 1] = static_cast<uint64_t>(Diff(d, base));
    }
    PutVarint64(out, ZigZagEncode64(base));
    const uint8_t w = ByteWidth(deltas);
    out->push_back(static_cast<char>(w));
    PutPlanes(deltas, w, zstd, out);
  }
  if (stats != nullptr) {
    stats->header += (at1 - at0) + (at3 - at2);
    stats->timestamps += at2 - at1;
    stats->value_exceptions += at4 - at3;
    stats->values += out->size() - at4;
  }
}

Status DecodeColdBlock(std::string_view in, Timestamp partition_start,
                       compress::ZstdCodec* zstd, std::vector<Timestamp>* ts,
                       std::vector<Value>* vs) {
  const Status bad = Status::Corruption("bad columnar cold block");
  uint32_t n = 0;
  uint64_t zz = 0;
  if (!GetVarint32(&in, &n) || n == 0 || n > kMaxColdBlockPoints || !GetVarint64(&in, &zz)) {
    return bad;
  }
  ts->resize(n);
  vs->resize(n);
  Timestamp* t = ts->data();
  t[0] = Add(partition_start, ZigZagDecode64(zz));
  if (n > 1) {
    uint32_t k = 0;
    if (!GetVarint64(&in, &zz) || !GetVarint32(&in, &k) || k >= n) return bad;
    const int64_t step = ZigZagDecode64(zz);
    size_t i = 1;  // the next point to fill
    for (uint32_t e = 0; e < k; ++e) {
      uint32_t gap = 0;
      uint64_t dz = 0;
      if (!GetVarint32(&in, &gap) || !GetVarint64(&in, &dz) || gap == 0 || gap > n - i) {
        return bad;
      }
      const size_t at = i - 1 + gap;  // this exception's point, < n
      for (; i < at; ++i) t[i] = Add(t[i - 1], step);
      t[at] = Add(t[at - 1], Add(step, ZigZagDecode64(dz)));
      i = at + 1;
    }
    for (; i < n; ++i) t[i] = Add(t[i - 1], step);
  }

  if (in.empty()) return bad;
  const auto kind = static_cast<uint8_t>(in[0]);
  in.remove_prefix(1);
  int scale = 0;
  if (kind > kXor) return bad;
  if (kind == kDecimal) {
    if (in.empty() || static_cast<uint8_t>(in[0]) > kMaxDecimalScale) return bad;
    scale = static_cast<uint8_t>(in[0]);
    in.remove_prefix(1);
  }
  uint32_t k = 0;
  if (!GetVarint32(&in, &k) || k > n) return bad;
  // The exceptions, in point order; every one takes at least 10 bytes.
  if (k > in.size() / 10) return bad;
  struct Exception {
    uint32_t at;
    Value v;
  };
  std::vector<Exception> ex;
  ex.reserve(k);
  size_t next = 0;
  for (uint32_t e = 0; e < k; ++e) {
    uint32_t gap = 0;
    if (!GetVarint32(&in, &gap) || gap >= n - next || in.size() < 9) return bad;
    const size_t at = next + gap;
    const auto type = static_cast<uint8_t>(in[0]);
    const uint64_t bits = DecodeFixed64(in.data() + 1);
    in.remove_prefix(9);
    if (type > 1) return bad;
    ex.push_back({static_cast<uint32_t>(at), type == 0 ? Value::Int(static_cast<int64_t>(bits))
                                                       : Value::Float(BitsToDouble(bits))});
    next = at + 1;
  }
  Value* v = vs->data();
  // Fills v: the native values from native() in order, the exceptions at
  // their places. native is a mutable lambda that holds its own state, so
  // the loops keep it in registers.
  const auto put = [&](auto native) {
    size_t i = 0;
    for (const Exception& x : ex) {
      for (; i < x.at; ++i) v[i] = native();
      v[i++] = x.v;
    }
    for (; i < n; ++i) v[i] = native();
  };
  std::vector<uint64_t> u;
  const size_t count = n - k;
  if (kind == kXor) {
    if (!GetPlanes(&in, count, 8, zstd, &u)) return bad;
    put([x = u.data(), prev = uint64_t{0}]() mutable {
      prev ^= *x++;
      return Value::Float(BitsToDouble(prev));
    });
  } else if (count > 0) {
    uint64_t first = 0;
    if (!GetVarint64(&in, &first) || !GetVarint64(&in, &zz) || in.empty()) return bad;
    const int64_t base = ZigZagDecode64(zz);
    const auto w = static_cast<uint8_t>(in[0]);
    in.remove_prefix(1);
    if (!GetPlanes(&in, count - 1, w, zstd, &u)) return bad;
    // The first native value is `first`; each next one adds base + u[j].
    const auto next_m = [m = ZigZagDecode64(first), x = u.data(), base,
                       started = false]() mutable {
      if (started) m = Add(m, Add(base, static_cast<int64_t>(*x++)));
      started = true;
      return m;
    };
    if (kind == kInt) {
      put([f = next_m]() mutable { return Value::Int(f()); });
    } else {
      put([f = next_m, scale]() mutable { return Value::Float(DecimalValue(f(), scale)); });
    }
  } else {
    put([] { return Value(); });  // every value is an exception: never called
  }
  if (!in.empty()) return bad;
  return Status::OK();
}

}  // namespace sundial::storage
