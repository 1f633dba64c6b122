#include "sundial/compress/page_decoder.h"

#include <cstring>

#include "bit_buffer.h"
#include "decimal.h"
#include "force_inline.h"
#include "rice_code.h"
#include "sundial/common/coding.h"
#include "timestamp_code.h"
#include "xor_code.h"

namespace sundial::compress {
namespace {

enum CodeKind : int { kZero, kNonZero, kSpecialA, kSpecialB, kBadCode };

// Reads one adaptive Rice code (rice_code.h) with parameter k; *z1 = z - 1
// for kNonZero. REQUIRES: 55 bits in the buffer.
SUNDIAL_INLINE int ReadCode(BitBuffer* in, uint32_t k, uint64_t* z1) {
  const uint64_t w = in->bits;
  if ((w & 1) == 0) {
    in->Consume(1);
    return kZero;
  }
  // 1 + q, q the count of ones after the first bit (at most kRiceMaxQ);
  // a 32-bit count: a 64-bit one is a library call on 32-bit CPUs.
  const int q1 = __builtin_ctz(static_cast<uint32_t>(~w) | (1u << (kRiceMaxQ + 1)));
  if (__builtin_expect(q1 <= kRiceMaxQ, 1)) {  // q + 2 + k <= 49 bits
    *z1 = (static_cast<uint64_t>(q1 - 1) << k) | ((w >> (q1 + 1)) & ((uint64_t{1} << k) - 1));
    in->Consume(q1 + 1 + static_cast<int>(k));
    return kNonZero;
  }
  const int e = static_cast<int>((w >> (1 + kRiceMaxQ)) & 127);
  in->Consume(kRiceLongPrefixBits);
  if (e >= 1 && e <= 64) {
    *z1 = in->ReadWide(e);
    return kNonZero;
  }
  if (e == kRiceSpecialA) return kSpecialA;
  if (e == kRiceSpecialB) return kSpecialB;
  return kBadCode;
}

// Updates a code's state a after z - 1 = z1 and its parameter k, as
// RiceState does, in fewer steps: a never exceeds 2^44 (it starts at 0, and
// a - a / 16 + min(z1, 2^40) <= 2^44 when a <= 2^44), so floor(log2(a / 16))
// is at most kRiceMaxK without a cap; floor(log2(a | 16)) - 4 is it, and 0
// when a / 16 < 2.
SUNDIAL_INLINE void Adapt(uint64_t* a, uint32_t* k, uint64_t z1) {
  const uint64_t c = uint64_t{1} << kRiceMaxK;
  *a += (z1 < c ? z1 : c) - (*a >> 4);
  *k = static_cast<uint32_t>(59 - __builtin_clzll(*a | 16));
}

// Value codes of int pages (kDecimal false) and decimal pages, as deltas or
// (kDod) delta-of-deltas. C is PageDecoder::Cursor.
template <bool kDod, bool kDecimal>
struct IntCodec {
  static SUNDIAL_INLINE Value Make(uint64_t native, double pow10) {
    if (kDecimal) return Value::Float(static_cast<double>(static_cast<int64_t>(native)) / pow10);
    return Value::Int(static_cast<int64_t>(native));
  }

  // Decodes one value code into *out; false if it is invalid. kChecked:
  // the page's first native value (coded as itself) may come.
  template <bool kChecked, typename C, typename P>
  static SUNDIAL_INLINE bool Decode(BitBuffer* in, C* c, const P& p, Value* out) {
    uint64_t z1 = 0;
    const int kind = ReadCode(in, c->val_k, &z1);
    if (__builtin_expect(kind <= kNonZero, 1)) {
      uint64_t d = kind == kNonZero ? UnZigZag(z1 + 1) : 0;
      if (kChecked && !c->seen_native) {
        c->native = d;
        c->seen_native = true;
      } else {
        if (kind == kNonZero) Adapt(&c->val_rice, &c->val_k, z1);
        if (kDod) {
          d += c->vdelta;
          c->vdelta = d;
        }
        c->native += kDecimal ? d : d << p.shift;
      }
      *out = Make(c->native, p.pow10);
      return true;
    }
    if (kind == kBadCode) return false;
    const uint64_t raw = in->ReadWide(64);
    *out = kind == kSpecialB ? Value::Int(static_cast<int64_t>(raw)) : Value::Float(BitsToDouble(raw));
    return true;
  }

  // Whether count buffered bits may be too few for the next value code
  // (ReadCode reads at most 9 + k bits, or a 16-bit long prefix).
  template <typename C>
  static SUNDIAL_INLINE bool NeedsRefill(uint32_t count, const C& c) {
    return count < 16 + c.val_k;
  }

  // The value of one point of a run (value code "0").
  template <typename C, typename P>
  static SUNDIAL_INLINE Value Run(C* c, const P& p) {
    if (kDod) c->native += kDecimal ? c->vdelta : c->vdelta << p.shift;
    c->seen_native = true;
    return Make(c->native, p.pow10);
  }
};

// Value codes of xor pages.
struct XorCodec {
  template <bool kChecked, typename C, typename P>
  static SUNDIAL_INLINE bool Decode(BitBuffer* in, C* c, const P&, Value* out) {
    const uint64_t w = in->bits;
    if ((w & 1) == 0) {  // "0": same value
      in->Consume(1);
    } else if ((w & 2) == 0) {  // "10": in the window
      const int n = c->width;
      if (__builtin_expect(n <= 53, 1)) {  // not kNoWindow, and all in w
        c->native ^= ((w >> 2) & ((uint64_t{1} << n) - 1)) << c->trail;
        in->Consume(2 + n);
      } else {
        in->Consume(2);
        if (n == kNoWindow) {
          c->native = in->ReadWide(64);
        } else {
          c->native ^= in->ReadWide(n) << c->trail;
        }
      }
    } else if ((w & 4) == 0) {  // "110": a rounded lead, no trail
      const int n = 64 - kLeadRounding[(w >> 3) & 7];
      c->width = static_cast<uint8_t>(n);
      c->trail = 0;
      if (n <= 49) {
        c->native ^= (w >> 6) & ((uint64_t{1} << n) - 1);
        in->Consume(6 + n);
      } else {
        in->Consume(6);
        c->native ^= in->ReadWide(n);
      }
    } else {  // "111": lead and width
      const int lead = static_cast<int>((w >> 3) & 31);
      int n = static_cast<int>((w >> 8) & 63);
      if (n == 0) n = 64;
      in->Consume(14);
      if (lead == 31 && n == 64) {  // an escaped int64
        *out = Value::Int(static_cast<int64_t>(in->ReadWide(64)));
        return true;
      }
      if (lead + n > 64) return false;
      c->width = static_cast<uint8_t>(n);
      c->trail = static_cast<uint8_t>(64 - lead - n);
      c->native ^= in->ReadWide(n) << c->trail;
    }
    *out = Value::Float(BitsToDouble(c->native));
    return true;
  }

  // Short codes may take 55 bits.
  template <typename C>
  static SUNDIAL_INLINE bool NeedsRefill(uint32_t, const C&) {
    return true;
  }

  template <typename C, typename P>
  static SUNDIAL_INLINE Value Run(C* c, const P&) {
    return Value::Float(BitsToDouble(c->native));
  }
};

// Reads one frame timestamp code (version 2): the delta. REQUIRES: 56 bits
// in the buffer. P is PageDecoder::Params.
template <typename P>
SUNDIAL_INLINE uint64_t ReadFrameCode(BitBuffer* in, const P& p) {
  const uint64_t f = in->bits & p.frame_escape;
  in->Consume(p.frame_w);
  if (__builtin_expect(f != p.frame_escape, 1)) return p.frame_base + f;
  in->Refill();
  const int b = static_cast<int>(in->bits & LowBits(kFrameEscapeLenBits));
  in->Consume(kFrameEscapeLenBits);
  return UnZigZag(in->ReadWide(b));
}

// Emits the points of the current run, as many as fit before stop.
// Returns an error, or null.
template <typename Codec, typename C, typename P>
SUNDIAL_INLINE const char* EmitRun(C* c, const P& p, Timestamp* t, Value* v, uint32_t* n,
                                   uint32_t stop) {
  const uint32_t k = c->run_left < stop - *n ? c->run_left : stop - *n;
  for (uint32_t i = 0; i < k; ++i) {
    c->t += c->delta;
    if (c->t - p.min_t > p.span) return "timestamp outside the header's range";
    t[*n] = static_cast<Timestamp>(c->t);
    v[*n] = Codec::Run(c, p);
    ++*n;
  }
  c->run_left -= k;
  c->started = 2;  // a run starts at point 1 or later
  return nullptr;
}

}  // namespace

void PageDecoder::Reset(std::string_view page) {
  status_ = DecodePageHeader(page, &h_);
  c_ = Cursor();
  p_ = Params();
  if (!status_.ok()) return;  // left() == 0
  c_.left = h_.count;
  c_.t = static_cast<uint64_t>(h_.first_t);
  const bool dod = h_.value_dod;
  switch (h_.value_encoding) {
    case ValueEncoding::kInt:
      if (dod) SelectLoops<IntCodec<true, false>>(h_.frame);
      else SelectLoops<IntCodec<false, false>>(h_.frame);
      break;
    case ValueEncoding::kDecimal:
      if (dod) SelectLoops<IntCodec<true, true>>(h_.frame);
      else SelectLoops<IntCodec<false, true>>(h_.frame);
      break;
    default:
      SelectLoops<XorCodec>(h_.frame);
      c_.seen_native = true;  // xor pages have no first-value code
      break;
  }
  p_.shift = h_.value_encoding == ValueEncoding::kInt ? h_.param : 0;
  p_.pow10 = h_.value_encoding == ValueEncoding::kDecimal ? kPow10[h_.param] : 1;
  p_.unit = h_.seconds ? 1000 : 1;
  p_.min_t = static_cast<uint64_t>(h_.min_t);
  p_.span = static_cast<uint64_t>(h_.max_t) - p_.min_t;
  // Positions are 32-bit; a page is at most kMaxPageSize bytes, so ignore
  // anything past that (the stream cannot use it).
  const size_t n = page.size() < kMaxPageSize ? page.size() : kMaxPageSize;
  const uint32_t size = static_cast<uint32_t>(n - kPageHeaderSize);
  p_.base = reinterpret_cast<const uint8_t*>(page.data()) + kPageHeaderSize;
  p_.end_bits = size * 8;
  c_.ptr = p_.base;
  uint32_t pos = 0;
  if (h_.frame && h_.count != 0 && !ReadFrameFields(size, &pos)) return;
  if (size < kGuardBytes) {
    EnterTail(pos);
  } else {
    p_.limit = p_.base + (size - kGuardBytes);
    BitBuffer in;
    in.Init(p_.base, pos);  // pos < 80 bits: the load stays in the page
    c_.ptr = in.ptr;
    c_.bits = in.bits;
    c_.count = in.count;
  }
}

template <typename Codec>
void PageDecoder::SelectLoops(bool frame) {
  fast_ = frame ? &Loop<Codec, true, false> : &Loop<Codec, false, false>;
  checked_ = frame ? &Loop<Codec, true, true> : &Loop<Codec, false, true>;
}

bool PageDecoder::ReadFrameFields(uint32_t size, uint32_t* pos) {
  BitReader r(p_.base, size);
  const TimestampFrame f = ReadFrame(&r);
  if (r.overrun()) {
    Fail("truncated bit stream");
    return false;
  }
  p_.frame_base = f.base;
  p_.frame_escape = f.escape();
  p_.frame_w = f.w;
  *pos = r.pos();
  return true;
}

// Moves decoding to a zero-padded copy of the stream's last bytes, where
// every load stays in bounds.
void PageDecoder::EnterTail(uint32_t pos) {
  BitBuffer in;
  const uint32_t byte = pos >> 3;
  const uint32_t n = p_.end_bits / 8 - byte;  // < kGuardBytes + 8
  std::memset(tail_bytes_, 0, sizeof(tail_bytes_));
  std::memcpy(tail_bytes_, p_.base + byte, n);
  p_.base = tail_bytes_;
  p_.end_bits = n * 8;
  p_.limit = tail_bytes_ + kTailBytes;  // never reached: the loops check overruns
  p_.tail = true;
  in.Init(tail_bytes_, pos & 7);
  c_.ptr = in.ptr;
  c_.bits = in.bits;
  c_.count = in.count;
}

void PageDecoder::Fail(const char* what) {
  status_ = Status::Corruption("page", what);
  c_.left = 0;
  c_.run_left = 0;
}

uint32_t PageDecoder::Decode(Timestamp* t, Value* v, uint32_t max) {
  uint32_t n = 0;
  while (n < max && c_.left != 0) {
    if (!p_.tail && c_.ptr > p_.limit) {
      EnterTail(BitBuffer{c_.ptr, c_.bits, c_.count}.Pos(p_.base));
    }
    const bool steady = !p_.tail && c_.started >= 2 && c_.seen_native;
    n += (steady ? fast_ : checked_)(this, t + n, v + n, max - n);
    if (!status_.ok()) break;
  }
  return n;
}

// Decodes up to max points. The fast loop (!kChecked) runs while the bit
// buffer's loads stay kGuardBytes before the end of the stream, after the
// page's first points; the checked loop decodes those first points (then
// returns) and the tail copy, checking for overruns after every point.
template <typename Codec, bool kFrame, bool kChecked>
uint32_t PageDecoder::Loop(PageDecoder* d, Timestamp* t, Value* v, uint32_t max) {
  Cursor c = d->c_;
  BitBuffer in{c.ptr, c.bits, c.count};
  const Params& p = d->p_;
  const uint32_t stop = max < c.left ? max : c.left;
  uint32_t n = 0;
  const char* err = nullptr;
  if (c.run_left != 0) err = EmitRun<Codec>(&c, p, t, v, &n, stop);
  while (err == nullptr && n < stop) {
    if (in.ptr > p.limit) break;  // the caller moves to the tail copy
    if (kChecked && !p.tail && c.started >= 2 && c.seen_native) break;
    in.Refill();
    if (kFrame && (!kChecked || c.started != 0)) {
      c.t += ReadFrameCode(&in, p);
      if (Codec::NeedsRefill(in.count, c)) in.Refill();
    } else if (!kChecked || c.started != 0) {
      uint64_t z1 = 0;
      const int kind = ReadCode(&in, c.ts_k, &z1);
      if (kind == kNonZero) {
        const uint64_t dod = UnZigZag(z1 + 1);
        c.delta += p.unit == 1 ? dod : dod * p.unit;  // no 64-bit multiply in ms pages
        if (!kChecked || c.started >= 2) Adapt(&c.ts_rice, &c.ts_k, z1);
        in.Refill();  // after a "0" code, 55 bits are left: enough
      } else if (__builtin_expect(kind != kZero, 0)) {
        if (kind != kSpecialA) {
          err = "bad timestamp code";
          break;
        }
        in.Refill();
        const auto count = static_cast<uint32_t>(in.bits & 0xffff);
        in.Consume(kRunCountBits);
        if (kChecked && in.Pos(p.base) > p.end_bits) {
          err = "truncated bit stream";
          break;
        }
        if (count == 0 || count > c.left - n) {
          err = "bad run length";
          break;
        }
        c.run_left = count;
        err = EmitRun<Codec>(&c, p, t, v, &n, stop);
        continue;
      }
      c.t += c.delta;
    }
    if (!Codec::template Decode<kChecked>(&in, &c, p, &v[n])) {
      err = "bad value code";
      break;
    }
    if (kChecked && in.Pos(p.base) > p.end_bits) {
      err = "truncated bit stream";
      break;
    }
    if (c.t - p.min_t > p.span) {
      err = "timestamp outside the header's range";
      break;
    }
    t[n] = static_cast<Timestamp>(c.t);
    ++n;
    if (kChecked && c.started < 2) ++c.started;
  }
  c.left -= n;
  c.ptr = in.ptr;
  c.bits = in.bits;
  c.count = in.count;
  d->c_ = c;
  if (err != nullptr) d->Fail(err);
  return n;
}

}  // namespace sundial::compress
