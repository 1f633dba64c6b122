#include "compress/reference_page_reader.h"

#include "compress/decimal.h"
#include "compress/force_inline.h"
#include "compress/int_code.h"
#include "sundial/common/coding.h"
#include "compress/timestamp_code.h"
#include "compress/xor_code.h"

namespace sundial::compress {

void ReferencePageReader::Reset(std::string_view page) {
  status_ = DecodePageHeader(page, &h_);
  left_ = status_.ok() ? h_.count : 0;
  run_left_ = 0;
  positioned_ = false;
  first_ = true;
  native_ = 0;
  vdelta_ = 0;
  delta_ = 0;
  lead_ = kNoWindow;
  trail_ = 0;
  ts_rice_ = val_rice_ = 0;
  seen_native_ = false;
  second_ = true;
  unit_ = h_.seconds ? 1000 : 1;
  if (!status_.ok()) {
    in_ = BitReader();
    return;
  }
  // Positions are 32-bit; a page is at most kMaxPageSize bytes, so ignore
  // anything past that (the stream cannot use it).
  const size_t n = page.size() < kMaxPageSize ? page.size() : kMaxPageSize;
  in_ = BitReader(reinterpret_cast<const uint8_t*>(page.data()) + kPageHeaderSize,
                  static_cast<uint32_t>(n - kPageHeaderSize));
  if (h_.frame && left_ != 0) {
    frame_ = ReadFrame(&in_);
    if (in_.overrun()) Fail("truncated bit stream");
  }
}

bool ReferencePageReader::Fail(const char* what) {
  status_ = Status::Corruption("page", what);
  left_ = 0;
  run_left_ = 0;
  positioned_ = false;
  return false;
}

// Applies a native int/decimal code (the wrapped zigzag-decoded value c).
SUNDIAL_INLINE void ReferencePageReader::ApplyIntCode(uint64_t c) {
  const bool first = !seen_native_;  // coded as itself, unshifted
  uint64_t d = c;
  if (!first && h_.value_dod) {
    d += vdelta_;
    vdelta_ = d;
  }
  seen_native_ = true;
  if (h_.value_encoding == ValueEncoding::kInt) {
    native_ += first ? d : d << h_.param;
    is_int_ = true;
    bits_ = native_;
  } else {
    native_ += d;
    is_int_ = false;
    bits_ = DoubleToBits(DecimalValue(static_cast<int64_t>(native_), h_.param));
  }
}

SUNDIAL_INLINE bool ReferencePageReader::DecodeIntDomain(BitReader* in) {
  RiceState rice{val_rice_};
  const IntCode c = ReadIntCode(in, &rice, seen_native_);
  val_rice_ = rice.a;
  if (c.kind == IntCode::kDelta) {
    ApplyIntCode(c.v);
  } else if (c.kind == IntCode::kBad) {
    return Fail("bad value code");
  } else {
    is_int_ = c.kind == IntCode::kEscapeInt;
    bits_ = c.v;
  }
  return true;
}

SUNDIAL_INLINE bool ReferencePageReader::DecodeXor(BitReader* in) {
  const uint64_t w = in->Peek();
  if ((w & 1) == 0) {
    in->Skip(1);
  } else if ((w & 2) == 0) {
    in->Skip(2);
    if (lead_ == kNoWindow) {
      native_ = in->Read64();
    } else {
      native_ ^= ReadBits(in, 64 - lead_ - trail_) << trail_;
    }
  } else if ((w & 4) == 0) {
    lead_ = kLeadRounding[(w >> 3) & 7];
    trail_ = 0;
    in->Skip(6);
    native_ ^= ReadBits(in, 64 - lead_);
  } else {
    const int lead = static_cast<int>((w >> 3) & 31);
    int n = static_cast<int>((w >> 8) & 63);
    if (n == 0) n = 64;
    in->Skip(14);
    if (lead == 31 && n == 64) {
      is_int_ = true;
      bits_ = in->Read64();
      return true;
    }
    if (lead + n > 64) return Fail("bad xor window");
    lead_ = static_cast<uint8_t>(lead);
    trail_ = static_cast<uint8_t>(64 - lead - n);
    native_ ^= ReadBits(in, n) << trail_;
  }
  is_int_ = false;
  bits_ = native_;
  return true;
}

SUNDIAL_INLINE bool ReferencePageReader::DecodeValue(BitReader* in) {
  if (h_.value_encoding == ValueEncoding::kXor) return DecodeXor(in);
  return DecodeIntDomain(in);
}

// Common tail: bounds, timestamp, range check.
SUNDIAL_INLINE bool ReferencePageReader::Finish(BitReader in) {
  if (in.overrun()) return Fail("truncated bit stream");
  in_ = BitReader(in.data(), in.size(), in.pos());
  t_ = static_cast<Timestamp>(static_cast<uint64_t>(x_) * unit_);
  if (t_ < h_.min_t || t_ > h_.max_t) return Fail("timestamp outside the header's range");
  --left_;
  positioned_ = true;
  return true;
}

bool ReferencePageReader::Next() {
  if (left_ == 0) {
    positioned_ = false;
    return false;
  }
  if (__builtin_expect(run_left_ != 0 || first_, 0)) return NextSpecial();
  BitReader in(in_.data(), in_.size(), in_.pos());  // kept in registers
  if (h_.frame) {
    delta_ = ReadFrameDelta(&in, frame_);
    if (!DecodeValue(&in)) return false;
    x_ = static_cast<int64_t>(static_cast<uint64_t>(x_) + delta_);
    return Finish(in);
  }
  RiceState rice{ts_rice_};
  const DodCode c = ReadDod(&in, &rice, !second_);
  ts_rice_ = rice.a;
  second_ = false;
  if (__builtin_expect(c.run || c.bad, 0)) {
    if (c.bad) return Fail("bad timestamp code");
    if (c.count == 0 || c.count > left_) return Fail("bad run length");
    run_left_ = c.count - 1;
    RunPoint();
    return Finish(in);
  }
  delta_ += c.dod;
  if (!DecodeValue(&in)) return false;
  x_ = static_cast<int64_t>(static_cast<uint64_t>(x_) + delta_);
  return Finish(in);
}

// One point of a run: a timestamp code "0" and a value code "0".
void ReferencePageReader::RunPoint() {
  x_ = static_cast<int64_t>(static_cast<uint64_t>(x_) + delta_);
  if (h_.value_encoding == ValueEncoding::kXor) {
    is_int_ = false;
    bits_ = native_;
  } else {
    ApplyIntCode(0);
  }
}

// The first point, and points inside a run.
bool ReferencePageReader::NextSpecial() {
  BitReader in(in_.data(), in_.size(), in_.pos());
  if (run_left_ != 0) {
    --run_left_;
    RunPoint();
  } else {
    first_ = false;
    x_ = h_.first_t / static_cast<int64_t>(unit_);
    if (!DecodeValue(&in)) return false;
  }
  return Finish(in);
}

bool ReferencePageReader::Seek(Timestamp t) {
  if (positioned_ && t_ >= t) return true;
  if (t > h_.max_t) {
    left_ = 0;
    positioned_ = false;
    return false;
  }
  while (Next()) {
    if (t_ >= t) return true;
  }
  return false;
}

}  // namespace sundial::compress
