#include "sundial/compress/page_iterator.h"

#include "decimal.h"
#include "int_code.h"
#include "sundial/common/coding.h"
#include "timestamp_code.h"
#include "xor_code.h"

namespace sundial::compress {

void PageIterator::Reset(std::string_view page) {
  status_ = DecodePageHeader(page, &h_);
  left_ = status_.ok() ? h_.count : 0;
  run_left_ = 0;
  positioned_ = false;
  first_ = true;
  native_ = 0;
  delta_ = 0;
  lead_ = kNoWindow;
  trail_ = 0;
  if (!status_.ok()) {
    in_ = BitReader();
    return;
  }
  // Positions are 32-bit; a page is at most kMaxPageSize bytes, so ignore
  // anything past that (the stream cannot use it).
  const size_t n = page.size() < kMaxPageSize ? page.size() : kMaxPageSize;
  in_ = BitReader(reinterpret_cast<const uint8_t*>(page.data()) + kPageHeaderSize,
                  static_cast<uint32_t>(n - kPageHeaderSize));
}

bool PageIterator::Fail(const char* what) {
  status_ = Status::Corruption("page", what);
  left_ = 0;
  run_left_ = 0;
  positioned_ = false;
  return false;
}

bool PageIterator::Next() {
  if (left_ == 0) {
    positioned_ = false;
    return false;
  }
  const int64_t unit = h_.seconds ? 1000 : 1;
  if (run_left_ != 0) {
    --run_left_;
    x_ = static_cast<int64_t>(static_cast<uint64_t>(x_) + delta_);
  } else if (first_) {
    first_ = false;
    x_ = h_.first_t / unit;
    if (!DecodeValue()) return false;
  } else {
    const DodCode c = ReadDod(&in_);
    if (c.run) {
      if (c.count == 0 || c.count > left_) return Fail("bad run length");
      run_left_ = c.count - 1;
    } else {
      delta_ += c.dod;
      if (!DecodeValue()) return false;
    }
    x_ = static_cast<int64_t>(static_cast<uint64_t>(x_) + delta_);
  }
  if (in_.overrun()) return Fail("truncated bit stream");
  t_ = static_cast<Timestamp>(static_cast<uint64_t>(x_) * static_cast<uint64_t>(unit));
  if (t_ < h_.min_t || t_ > h_.max_t) return Fail("timestamp outside the header's range");
  --left_;
  positioned_ = true;
  return true;
}

bool PageIterator::Seek(Timestamp t) {
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

bool PageIterator::DecodeValue() {
  if (h_.value_encoding == ValueEncoding::kXor) return DecodeXor();
  return DecodeIntDomain();
}

bool PageIterator::DecodeIntDomain() {
  const IntCode c = ReadIntCode(&in_);
  if (c.kind == IntCode::kDelta) {
    native_ += c.v;
    if (h_.value_encoding == ValueEncoding::kInt) {
      is_int_ = true;
      bits_ = native_;
    } else {
      is_int_ = false;
      bits_ = DoubleToBits(DecimalValue(static_cast<int64_t>(native_), h_.scale));
    }
  } else {
    is_int_ = c.kind == IntCode::kEscapeInt;
    bits_ = c.v;
  }
  return true;
}

bool PageIterator::DecodeXor() {
  const uint64_t w = in_.Peek();
  if ((w & 1) == 0) {
    in_.Skip(1);
  } else if ((w & 2) == 0) {
    if (lead_ == kNoWindow) return Fail("xor window used before it is set");
    in_.Skip(2);
    native_ ^= ReadBits(&in_, 64 - lead_ - trail_) << trail_;
  } else {
    const int lead = static_cast<int>((w >> 2) & 31);
    int n = static_cast<int>((w >> 7) & 63);
    if (n == 0) n = 64;
    in_.Skip(13);
    if (lead == 31 && n == 64) {
      is_int_ = true;
      bits_ = in_.Read64();
      return true;
    }
    if (lead + n > 64) return Fail("bad xor window");
    lead_ = static_cast<uint8_t>(lead);
    trail_ = static_cast<uint8_t>(64 - lead - n);
    native_ ^= ReadBits(&in_, n) << trail_;
  }
  is_int_ = false;
  bits_ = native_;
  return true;
}

}  // namespace sundial::compress
