#include "compress_gorilla.h"

#include <cstring>

#include "sundial/common/coding.h"

namespace sundial::bench {

using compress::BitReader;
using compress::BitWriter;
using compress::LowBits;

namespace {

void WriteN(BitWriter* w, uint64_t v, int n) {
  if (n <= 57) {
    w->Write(v, n);
  } else {
    w->Write(v & 0xffffffffu, 32);
    w->Write(v >> 32, n - 32);
  }
}
uint64_t ReadN(BitReader* r, int n) {
  if (n <= 57) return r->Read(n);
  const uint64_t lo = r->Read(32);
  return lo | (r->Read(n - 32) << 32);
}
// Buckets hold [-(2^(n-1) - 1), 2^(n-1)], as in Prometheus.
int64_t SignExtend(uint64_t v, int n) {
  const auto x = static_cast<int64_t>(v);
  return x > (int64_t{1} << (n - 1)) ? x - (int64_t{1} << n) : x;
}

}  // namespace

GorillaPage::GorillaPage(uint32_t page_size)
    : page_size_(page_size), buf_(new uint8_t[page_size + 32]()) {}

void GorillaPage::Reset() {
  std::memset(buf_.get(), 0, page_size_ + 32);
  pos_ = count_ = 0;
  prev_delta_ = 0;
  lead_ = 0xff;
}

std::string_view GorillaPage::data() const {
  return std::string_view(reinterpret_cast<const char*>(buf_.get()), 2 + (pos_ + 7) / 8);
}

bool GorillaPage::Append(Timestamp t, double d) {
  const uint64_t v = DoubleToBits(d);
  BitWriter w(buf_.get() + 2, pos_);
  uint8_t lead = lead_, trail = trail_;
  int64_t delta = 0;
  if (count_ == 0) {
    w.Write64(static_cast<uint64_t>(t));
    w.Write64(v);
  } else {
    delta = t - prev_t_;
    const int64_t dod = delta - prev_delta_;
    if (dod == 0) {
      w.Write(0, 1);
    } else if (dod >= -8191 && dod <= 8192) {
      w.Write(0x1 | (static_cast<uint64_t>(dod) & LowBits(14)) << 2, 16);
    } else if (dod >= -65535 && dod <= 65536) {
      w.Write(0x3 | (static_cast<uint64_t>(dod) & LowBits(17)) << 3, 20);
    } else if (dod >= -524287 && dod <= 524288) {
      w.Write(0x7 | (static_cast<uint64_t>(dod) & LowBits(20)) << 4, 24);
    } else {
      w.Write(0xf, 4);
      w.Write64(static_cast<uint64_t>(dod));
    }
    const uint64_t x = v ^ prev_v_;
    if (x == 0) {
      w.Write(0, 1);
    } else {
      int l = __builtin_clzll(x);
      const int tz = __builtin_ctzll(x);
      if (l > 31) l = 31;
      if (lead != 0xff && l >= lead && tz >= trail) {
        w.Write(0x1, 2);
        WriteN(&w, x >> trail, 64 - lead - trail);
      } else {
        const int n = 64 - l - tz;
        lead = static_cast<uint8_t>(l);
        trail = static_cast<uint8_t>(tz);
        w.Write(0x3 | static_cast<uint64_t>(l) << 2 | static_cast<uint64_t>(n & 63) << 7, 13);
        WriteN(&w, x >> tz, n);
      }
    }
  }
  if (w.pos() > (page_size_ - 2) * 8 || count_ == 0xffff) {
    w.Truncate(pos_);
    return false;
  }
  pos_ = w.pos();
  lead_ = lead;
  trail_ = trail;
  prev_t_ = t;
  prev_delta_ = delta;
  prev_v_ = v;
  ++count_;
  EncodeFixed16(reinterpret_cast<char*>(buf_.get()), static_cast<uint16_t>(count_));
  return true;
}

GorillaReader::GorillaReader(std::string_view page)
    : in_(reinterpret_cast<const uint8_t*>(page.data()) + 2,
          static_cast<uint32_t>(page.size() - 2)),
      left_(DecodeFixed16(page.data())) {}

double GorillaReader::v() const { return BitsToDouble(v_); }

bool GorillaReader::Next() {
  if (left_ == 0) return false;
  --left_;
  if (first_) {
    first_ = false;
    t_ = static_cast<Timestamp>(in_.Read64());
    v_ = in_.Read64();
    return true;
  }
  const uint64_t w = in_.Peek();
  int64_t dod = 0;
  if ((w & 1) == 0) {
    in_.Skip(1);
  } else if ((w & 2) == 0) {
    dod = SignExtend((w >> 2) & LowBits(14), 14);
    in_.Skip(16);
  } else if ((w & 4) == 0) {
    dod = SignExtend((w >> 3) & LowBits(17), 17);
    in_.Skip(20);
  } else if ((w & 8) == 0) {
    dod = SignExtend((w >> 4) & LowBits(20), 20);
    in_.Skip(24);
  } else {
    in_.Skip(4);
    dod = static_cast<int64_t>(in_.Read64());
  }
  delta_ += dod;
  t_ += delta_;
  const uint64_t x = in_.Peek();
  if ((x & 1) == 0) {
    in_.Skip(1);
  } else if ((x & 2) == 0) {
    in_.Skip(2);
    v_ ^= ReadN(&in_, 64 - lead_ - trail_) << trail_;
  } else {
    lead_ = static_cast<uint8_t>((x >> 2) & 31);
    int n = static_cast<int>((x >> 7) & 63);
    if (n == 0) n = 64;
    trail_ = static_cast<uint8_t>(64 - lead_ - n);
    in_.Skip(13);
    v_ ^= ReadN(&in_, n) << trail_;
  }
  return true;
}

}  // namespace sundial::bench
