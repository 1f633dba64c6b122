#include "sundial/compress/page_builder.h"

#include <algorithm>
#include <cassert>
#include <cstring>
#include <vector>

#include "decimal.h"
#include "force_inline.h"
#include "int_code.h"
#include "rice_code.h"
#include "sundial/common/coding.h"
#include "sundial/compress/bit_stream.h"
#include "sundial/compress/page_iterator.h"
#include "timestamp_code.h"
#include "xor_code.h"

namespace sundial::compress {

PageBuilder::Buffer::Buffer(BufferPool* from, uint32_t bytes)
    : p(from != nullptr ? from->Allocate(bytes) : new uint8_t[bytes]), cap(bytes), pool(from) {
  std::memset(p, 0, cap);
}

PageBuilder::Buffer& PageBuilder::Buffer::operator=(Buffer&& o) noexcept {
  if (this != &o) {
    Release();
    p = o.p;
    cap = o.cap;
    pool = o.pool;
    o.p = nullptr;
  }
  return *this;
}

void PageBuilder::Buffer::Release() {
  if (p == nullptr) return;
  if (pool != nullptr) {
    pool->Free(p, cap);
  } else {
    delete[] p;
  }
  p = nullptr;
}

PageBuilder::PageBuilder(uint32_t page_size, bool value_dod, BufferPool* pool)
    : page_size_(page_size),
      allow_value_dod_(value_dod),
      buf_(pool, CapacityFor(kPageHeaderSize + kSlack, page_size)) {
  assert(page_size >= kMinPageSize && page_size <= kMaxPageSize);
  WriteHeader();
}

PageBuilder::PageBuilder(PageBuilder&&) noexcept = default;
PageBuilder& PageBuilder::operator=(PageBuilder&&) noexcept = default;
PageBuilder::~PageBuilder() = default;

std::string_view PageBuilder::data() const {
  return std::string_view(reinterpret_cast<const char*>(buf_.get()), size());
}

uint32_t PageBuilder::size() const { return kPageHeaderSize + (st_.pos + 7) / 8; }

void PageBuilder::Reset() {
  ChooseNextFrame();
  const uint32_t small = CapacityFor(kPageHeaderSize + kSlack, page_size_);
  if (buf_.cap > small) {
    // Start small again: the next page of the series may stay short.
    buf_ = Buffer(buf_.pool, small);
  } else {
    std::memset(buf_.get() + kPageHeaderSize, 0, (st_.pos + 7) / 8);
  }
  st_ = State();
  WriteHeader();
}

uint32_t PageBuilder::CapacityFor(uint32_t need, uint32_t page_size) {
  const uint32_t full = page_size + kSlack;
  // Steps of 64 bytes: an open page wastes 32 bytes on average, and a page
  // is copied about page_size / 64 times as it fills (a few ns a point).
  // The last step goes to the full size at once rather than a few bytes
  // short of it.
  const uint32_t cap = std::max(kInitialCapacity, (need + kGrowStep - 1) / kGrowStep * kGrowStep);
  return cap + kGrowStep >= full ? full : cap;
}

void PageBuilder::Resize(uint32_t cap) {
  const uint32_t n = size();
  assert(cap >= n + kSlack);
  Buffer bigger(buf_.pool, cap);
  std::memcpy(bigger.get(), buf_.get(), n);
  buf_ = std::move(bigger);
}

void PageBuilder::WriteHeader() {
  PageHeader h;
  h.value_encoding = st_.enc;
  h.seconds = st_.seconds;
  h.param = st_.param;
  h.value_dod = st_.vdod;
  h.frame = st_.frame;
  h.count = st_.count;
  h.first_t = st_.first_t;
  h.min_t = st_.min_t;
  h.max_t = st_.max_t;
  EncodePageHeader(h, reinterpret_cast<char*>(buf_.get()));
}

bool PageBuilder::Append(Timestamp t, Value v) {
  // One point writes at most kSlack bytes past size() (see kSlack). Never
  // true once the buffer has its full size: size() <= page_size_ then.
  if (__builtin_expect(size() + kSlack > buf_.cap, 0)) {
    Resize(CapacityFor(size() + kSlack, page_size_));
  }
  bool done;
  switch (st_.enc) {
    case ValueEncoding::kInt: done = AppendSteady<ValueEncoding::kInt>(t, v); break;
    case ValueEncoding::kDecimal: done = AppendSteady<ValueEncoding::kDecimal>(t, v); break;
    default: done = AppendSteady<ValueEncoding::kXor>(t, v); break;
  }
  return done || AppendSlow(t, v);
}

// Everything AppendSteady does not take: the first points, runs, escapes,
// re-encodes, a full page.
bool PageBuilder::AppendSlow(Timestamp t, Value v) {
  if (st_.count == 0) {
    ChooseInitialEncoding(t, v);
    const Result r = EncodePoint(t, v, true);
    WriteHeader();
    return r == Result::kOk;
  }
  if (st_.count >= kMaxPointsPerPage) return false;
  const Timestamp lo = t < st_.min_t ? t : st_.min_t;
  const Timestamp hi = t > st_.max_t ? t : st_.max_t;
  if (static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo) > kMaxPageSpanMs) {
    return false;
  }
  if (st_.seconds && t % 1000 != 0 && !Reencode(st_.enc, st_.param, false, st_.vdod)) {
    return false;
  }
  const uint8_t reencodes = st_.reencodes;
  Result r = EncodePoint(t, v, false);
  if (r == Result::kNotNative) {
    Widen(v);
    r = EncodePoint(t, v, true);
  }
  if (r == Result::kFull && SwitchOrder()) r = EncodePoint(t, v, true);
  if (r != Result::kOk) return false;
  if (reencodes != st_.reencodes) {
    WriteHeader();
  } else {
    UpdateHeader(t);
  }
  // The header is current again: a re-encode may read the page.
  if (st_.count == kOrderCheckPoints) SwitchOrder();
  return true;
}

// Writes the header fields one append can change: the count and the range.
SUNDIAL_INLINE void PageBuilder::UpdateHeader(Timestamp t) {
  char* h = reinterpret_cast<char*>(buf_.get());
  EncodeFixed16(h + 2, st_.count);
  if (t == st_.min_t) {
    EncodeFixed32(h + 12, static_cast<uint32_t>(static_cast<uint64_t>(st_.first_t) -
                                                static_cast<uint64_t>(t)));
  }
  if (t == st_.max_t) {
    EncodeFixed32(h + 16, static_cast<uint32_t>(static_cast<uint64_t>(t) -
                                                static_cast<uint64_t>(st_.first_t)));
  }
}

void PageBuilder::ChooseInitialEncoding(Timestamp t, Value v) {
  st_ = State();
  st_.seconds = t % 1000 == 0;
  if (frame_w_ != 0) {
    st_.seconds = false;
    st_.frame = true;
  }
  if (v.is_int()) {
    st_.enc = ValueEncoding::kInt;
    st_.param = kMaxIntShift;  // lowered by the first deltas
    return;
  }
  const int s = MinDecimalScale(v.float_value(), 0);
  st_.enc = s >= 0 ? ValueEncoding::kDecimal : ValueEncoding::kXor;
  st_.param = static_cast<uint8_t>(s >= 0 ? s : 0);
}

// Whether v is native to the page's encoding; *native is its native form.
// E is the page's encoding, s.enc (one copy of the steady path for each).
template <ValueEncoding E>
SUNDIAL_INLINE bool PageBuilder::Native(Value v, uint64_t bits, uint64_t* native) const {
  const State& s = st_;
  if (E == ValueEncoding::kInt) {
    *native = bits;
    return v.is_int() && (!s.has_native || ((bits - s.prev_native) & LowBits(s.param)) == 0);
  }
  if (E == ValueEncoding::kDecimal) {
    int64_t m = 0;
    if (v.is_int() || !DecimalFits(v.float_value(), s.param, &m)) return false;
    *native = static_cast<uint64_t>(m);
    return !s.has_native || ZigZag(*native - s.prev_native) < kMaxDecimalZigZag;
  }
  *native = bits;
  return !v.is_int();
}

bool PageBuilder::NativeAny(Value v, uint64_t bits, uint64_t* native) const {
  switch (st_.enc) {
    case ValueEncoding::kInt: return Native<ValueEncoding::kInt>(v, bits, native);
    case ValueEncoding::kDecimal: return Native<ValueEncoding::kDecimal>(v, bits, native);
    default: return Native<ValueEncoding::kXor>(v, bits, native);
  }
}

// Whether native (native to the page) would be coded as the single bit "0";
// *dprime is then its step as the state keeps it.
template <ValueEncoding E>
SUNDIAL_INLINE bool PageBuilder::ZeroCode(uint64_t native, uint64_t* dprime) const {
  const State& s = st_;
  if (E == ValueEncoding::kXor) return native == s.prev_native;
  if (!s.has_native) return native == 0;
  uint64_t d = native - s.prev_native;
  if (E == ValueEncoding::kInt) {
    d = static_cast<uint64_t>(static_cast<int64_t>(d) >> s.param);
  }
  *dprime = d;
  return (s.vdod ? d - s.prev_vdelta : d) == 0;
}

bool PageBuilder::ZeroCodeAny(uint64_t native, uint64_t* dprime) const {
  switch (st_.enc) {
    case ValueEncoding::kInt: return ZeroCode<ValueEncoding::kInt>(native, dprime);
    case ValueEncoding::kDecimal: return ZeroCode<ValueEncoding::kDecimal>(native, dprime);
    default: return ZeroCode<ValueEncoding::kXor>(native, dprime);
  }
}

// BitWidth(z) without a branch, but 63 for z >= 2^63: good enough for the
// cost estimates that choose the value order.
SUNDIAL_INLINE int CostWidth(uint64_t z) { return 63 - __builtin_clzll((z << 1) | 1); }

// The value side of the encoder state after one value code.
struct PageBuilder::ValueStep {
  uint64_t rice;
  uint64_t vdelta;
  uint32_t cost_delta, cost_dod;
  uint8_t lead, trail;
  bool zero;  // the code was the single bit "0"
};

// Keeps the value coder's state after a point was written with n.
SUNDIAL_INLINE void PageBuilder::KeepValueStep(const ValueStep& n) {
  State& s = st_;
  s.val_rice = n.rice;
  s.prev_vdelta = n.vdelta;
  s.cost_delta = n.cost_delta;
  s.cost_dod = n.cost_dod;
  s.lead = n.lead;
  s.trail = n.trail;
}

// Adds a point coded "00" (timestamp x, value native whose step is dprime)
// to the open run, in place.
SUNDIAL_INLINE void PageBuilder::ExtendRun(BitWriter* w, int64_t x, uint64_t native,
                                           uint64_t dprime) {
  State& s = st_;
  ++s.run_len;
  w->Overwrite(s.run_at, s.run_len, kRunCountBits);
  s.prev_x = x;
  s.prev_native = native;
  s.prev_vdelta = dprime;
  s.last_native = true;
}

// Writes the value code of v (native, or escaped when !is_native).
template <ValueEncoding E>
SUNDIAL_INLINE PageBuilder::ValueStep PageBuilder::WriteValue(BitWriter* w, Value v, uint64_t bits,
                                                              uint64_t native, bool is_native) const {
  const State& s = st_;
  ValueStep n{s.val_rice, s.prev_vdelta, s.cost_delta, s.cost_dod, s.lead, s.trail, false};
  if (!is_native) {
    if (E == ValueEncoding::kXor) {
      WriteXorIntEscape(w, bits);
    } else {
      WriteIntEscape(w, v.is_int(), bits);
    }
    return n;
  }
  if (E == ValueEncoding::kXor) {
    n.zero = native == s.prev_native;
    WriteXor(w, native, s.prev_native, &n.lead, &n.trail);
    return n;
  }
  uint64_t code = native;  // the first native value: its own code
  if (s.has_native) {
    uint64_t d = native - s.prev_native;
    if (E == ValueEncoding::kInt) {
      d = static_cast<uint64_t>(static_cast<int64_t>(d) >> s.param);
    }
    const uint64_t dd = d - s.prev_vdelta;
    code = s.vdod ? dd : d;
    n.vdelta = d;
    // Rough costs of both orders, to pick the cheaper one (SwitchOrder).
    n.cost_delta += 1 + static_cast<uint32_t>(CostWidth(ZigZag(d)));
    n.cost_dod += 1 + static_cast<uint32_t>(CostWidth(ZigZag(dd)));
  }
  n.zero = code == 0;
  RiceState rice{n.rice};
  WriteIntDelta(w, code, &rice, s.has_native);
  n.rice = rice.a;
  return n;
}

PageBuilder::ValueStep PageBuilder::WriteValueAny(BitWriter* w, Value v, uint64_t bits,
                                                  uint64_t native, bool is_native) const {
  switch (st_.enc) {
    case ValueEncoding::kInt:
      return WriteValue<ValueEncoding::kInt>(w, v, bits, native, is_native);
    case ValueEncoding::kDecimal:
      return WriteValue<ValueEncoding::kDecimal>(w, v, bits, native, is_native);
    default:
      return WriteValue<ValueEncoding::kXor>(w, v, bits, native, is_native);
  }
}

// The common case, in one pass: a value native to the page, after its
// first two points, with no run open and room left. Codes the point exactly
// as EncodePoint would. Returns false, changing nothing, when any of that
// does not hold (Append then takes the general path).
template <ValueEncoding E>
SUNDIAL_INLINE bool PageBuilder::AppendSteady(Timestamp t, Value v) {
  State& s = st_;
  if (s.count < 2 || !s.has_native || s.count >= kMaxPointsPerPage) return false;
  const Timestamp lo = t < s.min_t ? t : s.min_t;
  const Timestamp hi = t > s.max_t ? t : s.max_t;
  if (static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo) > kMaxPageSpanMs) return false;
  int64_t x = t;
  if (s.seconds) {
    // x = t / 1000 from the step since the last point (a multiple of 1000
    // too, or t is not): a 32-bit division where it fits, as a 64-bit one
    // is a library call on 32-bit CPUs.
    const auto step = static_cast<uint64_t>(t) - static_cast<uint64_t>(s.last_t);
    if (step == s.prev_step) {  // the step before, in whole seconds
      x = static_cast<int64_t>(static_cast<uint64_t>(s.prev_x) + s.prev_delta);
    } else if (step + 0x80000000u <= 0xffffffffu) {
      const auto step32 = static_cast<int32_t>(static_cast<int64_t>(step));
      if (step32 % 1000 != 0) return false;
      x = s.prev_x + step32 / 1000;
    } else {
      x = t / 1000;
      if (x * 1000 != t) return false;
    }
  }
  const uint64_t bits = v.is_int() ? static_cast<uint64_t>(v.int_value())
                                   : DoubleToBits(v.float_value());
  uint64_t native;
  if (!Native<E>(v, bits, &native)) return false;
  const uint64_t delta = static_cast<uint64_t>(x) - static_cast<uint64_t>(s.prev_x);
  const uint64_t dod = delta - s.prev_delta;
  BitWriter w(buf_.get() + kPageHeaderSize, s.pos);
  if (s.run_len != 0) {
    // A point coded "00" extends the open run in place; others go the
    // general way.
    uint64_t dprime = 0;
    if (dod != 0 || !ZeroCode<E>(native, &dprime)) return false;
    ExtendRun(&w, x, native, dprime);
    return FinishSteady(t, lo, hi);
  }
  RiceState ts_rice{s.ts_rice};
  bool escape = false;
  if (s.frame) {
    escape = WriteFrameDelta(&w, TimestampFrame{frame_base_, frame_w_}, delta);
  } else {
    WriteDod(&w, dod, &ts_rice, true);
  }
  const uint32_t ts_bits = w.pos() - s.pos;
  const ValueStep n = WriteValue<E>(&w, v, bits, native, true);
  if (w.pos() > (page_size_ - kPageHeaderSize) * 8) {
    w.Truncate(s.pos);
    return false;
  }
  s.pos = w.pos();
  if (s.frame) {
    s.frame_escapes = static_cast<uint16_t>(s.frame_escapes + escape);
    s.same_steps = static_cast<uint16_t>(s.same_steps + (dod == 0));
  } else {
    s.ts_bits += ts_bits;
  }
  s.ts_rice = ts_rice.a;
  KeepValueStep(n);
  s.prev_native = native;
  s.last_native = true;
  s.prev_delta = delta;
  s.prev_x = x;
  s.repeats = !s.frame && dod == 0 && n.zero ? static_cast<uint16_t>(s.repeats + 1) : 0;
  if (s.repeats >= kMinRunPoints) StartRun(&w);
  return FinishSteady(t, lo, hi);
}

// AppendSteady's common tail: the range, the count and the header.
SUNDIAL_INLINE bool PageBuilder::FinishSteady(Timestamp t, Timestamp lo, Timestamp hi) {
  State& s = st_;
  s.min_t = lo;
  s.max_t = hi;
  s.prev_step = static_cast<uint64_t>(t) - static_cast<uint64_t>(s.last_t);
  s.last_t = t;
  ++s.count;
  UpdateHeader(t);
  if (s.count == kOrderCheckPoints) SwitchOrder();
  return true;
}

PageBuilder::Result PageBuilder::EncodePoint(Timestamp t, Value v,
                                             bool allow_escape) {
  State& s = st_;
  const uint64_t bits = v.is_int() ? static_cast<uint64_t>(v.int_value())
                                   : DoubleToBits(v.float_value());
  const int64_t x = s.seconds ? t / 1000 : t;
  const uint64_t delta =
      s.count == 0 ? 0 : static_cast<uint64_t>(x) - static_cast<uint64_t>(s.prev_x);
  const uint64_t dod = delta - s.prev_delta;
  BitWriter w(buf_.get() + kPageHeaderSize, s.pos);

  uint64_t native = 0;
  const bool is_native = NativeAny(v, bits, &native);
  uint64_t dprime = 0;  // the value's step, as WriteValue codes it
  if (s.run_len != 0 && dod == 0 && is_native && ZeroCodeAny(native, &dprime)) {
    // A point coded "00" extends the open run in place.
    ExtendRun(&w, x, native, dprime);
  } else {
    if (!is_native && !allow_escape) return Result::kNotNative;
    RiceState ts_rice{s.ts_rice};
    const TimestampFrame frame{frame_base_, frame_w_};
    bool escape = false;
    if (s.count == 0 && s.frame) WriteFrame(&w, frame);
    if (s.count != 0 && s.frame) escape = WriteFrameDelta(&w, frame, delta);
    if (s.count != 0 && !s.frame) WriteDod(&w, dod, &ts_rice, s.count >= 2);
    const uint32_t ts_bits = w.pos() - s.pos;
    const ValueStep n = WriteValueAny(&w, v, bits, native, is_native);
    if (w.pos() > (page_size_ - kPageHeaderSize) * 8) {
      w.Truncate(s.pos);
      return Result::kFull;
    }
    const bool repeat = !s.frame && s.count != 0 && dod == 0 && n.zero;  // coded "00"
    s.pos = w.pos();
    s.ts_bits += ts_bits;
    s.frame_escapes = static_cast<uint16_t>(s.frame_escapes + escape);
    s.same_steps = static_cast<uint16_t>(s.same_steps + (s.count != 0 && dod == 0));
    s.ts_rice = ts_rice.a;
    KeepValueStep(n);
    if (is_native) {
      s.prev_native = native;
      s.has_native = true;
    } else {
      ++s.escapes;
    }
    s.last_native = is_native;
    s.prev_delta = delta;
    s.prev_x = x;
    s.run_len = 0;
    s.repeats = repeat ? static_cast<uint16_t>(s.repeats + 1) : 0;
    if (s.repeats >= kMinRunPoints) StartRun(&w);
  }
  if (s.count == 0) {
    s.first_t = s.min_t = s.max_t = t;
  } else {
    if (t < s.min_t) s.min_t = t;
    if (t > s.max_t) s.max_t = t;
    s.prev_step = static_cast<uint64_t>(t) - static_cast<uint64_t>(s.last_t);
  }
  s.last_t = t;
  ++s.count;
  return Result::kOk;
}

// Replaces the trailing "00" repeats with one run code of the same length.
void PageBuilder::StartRun(BitWriter* w) {
  State& s = st_;
  w->Truncate(s.pos - 2u * s.repeats);
  WriteRunPrefix(w);
  s.run_at = w->pos();
  w->Write(s.repeats, kRunCountBits);
  s.pos = w->pos();
  s.run_len = s.repeats;
  s.repeats = 0;
}

void PageBuilder::Widen(Value v) {
  State& s = st_;
  if (s.enc == ValueEncoding::kInt && v.is_int() && s.has_native) {
    NarrowShift(v.int_value());
    return;
  }
  // Switch the native type only once escapes would be more than half.
  const bool common = (s.escapes + 1u) * 2 > s.count + 1u;
  if (s.enc == ValueEncoding::kDecimal && !v.is_int()) {
    const int scale = MinDecimalScale(v.float_value(), s.param + 1);
    if (scale >= 0) {
      Reencode(ValueEncoding::kDecimal, static_cast<uint8_t>(scale), s.seconds, s.vdod);
    } else if (common) {
      Reencode(ValueEncoding::kXor, 0, s.seconds, false);
    }
    return;
  }
  if (!common) return;
  if (v.is_int()) {
    Reencode(ValueEncoding::kInt, 0, s.seconds, false);
    return;
  }
  ValueEncoding enc;
  uint8_t scale;
  ChooseFloatEncoding(v.float_value(), &enc, &scale);
  Reencode(enc, scale, s.seconds, false);
}

// Re-encodes an int or decimal page with values in the other order (delta
// or delta-of-delta) when that looks clearly cheaper (by 1/8 or more).
bool PageBuilder::SwitchOrder() {
  const State& s = st_;
  if (s.enc == ValueEncoding::kXor || !allow_value_dod_) return false;
  const uint32_t now = s.vdod ? s.cost_dod : s.cost_delta;
  const uint32_t other = s.vdod ? s.cost_delta : s.cost_dod;
  if (other * 8 > now * 7) return false;
  return Reencode(s.enc, s.param, s.seconds, !s.vdod);
}

void PageBuilder::NarrowShift(int64_t v) {
  State& s = st_;
  const uint64_t d = static_cast<uint64_t>(v) - s.prev_native;  // not 0 here
  const auto shift = static_cast<uint8_t>(__builtin_ctzll(d));
  if (s.count == 1) {  // only the first value, whose code has no shift
    s.param = shift;
    WriteHeader();
    return;
  }
  Reencode(ValueEncoding::kInt, shift, s.seconds, s.vdod);  // or escape v if it fails
}

// The cheapest float encoding for v and every float already in the page:
// the smallest decimal scale that holds them all, unless too many of them
// would then be escaped for large jumps; else xor.
void PageBuilder::ChooseFloatEncoding(double v, ValueEncoding* enc,
                                      uint8_t* scale) const {
  int s = MinDecimalScale(v, 0);
  PageIterator it(data());
  while (s >= 0 && it.Next()) {
    const Value pv = it.v();
    int64_t m;
    if (!pv.is_int() && !DecimalFits(pv.float_value(), s, &m)) {
      s = MinDecimalScale(pv.float_value(), s + 1);
    }
  }
  uint32_t floats = 1, jumps = 0;
  if (s >= 0) {
    int64_t m = 0, prev = 0;
    bool have_prev = false;
    it.Reset(data());
    while (it.Next()) {
      if (it.v().is_int() || !DecimalFits(it.v().float_value(), s, &m)) continue;
      ++floats;
      if (have_prev && ZigZag(static_cast<uint64_t>(m) - static_cast<uint64_t>(prev)) >=
                           kMaxDecimalZigZag) {
        ++jumps;
      }
      prev = m;
      have_prev = true;
    }
    if (have_prev && DecimalFits(v, s, &m) &&
        ZigZag(static_cast<uint64_t>(m) - static_cast<uint64_t>(prev)) >= kMaxDecimalZigZag) {
      ++jumps;
    }
  }
  const bool decimal = s >= 0 && jumps * 4 <= floats;
  *enc = decimal ? ValueEncoding::kDecimal : ValueEncoding::kXor;
  *scale = static_cast<uint8_t>(decimal ? s : 0);
}

bool PageBuilder::Reencode(ValueEncoding enc, uint8_t param, bool seconds, bool vdod) {
  if (st_.reencodes >= kMaxReencodes) return false;
  ++st_.reencodes;
  // The new encoding may be longer (up to the full page) for a while: give
  // it the full buffer, and hand back what the result does not need.
  const uint32_t full = page_size_ + kSlack;
  if (buf_.cap < full) Resize(full);
  const bool ok = ReencodeFull(enc, param, seconds, vdod);
  const uint32_t fit = CapacityFor(size() + kSlack, page_size_);
  if (fit < buf_.cap) Resize(fit);
  return ok;
}

bool PageBuilder::ReencodeFull(ValueEncoding enc, uint8_t param, bool seconds, bool vdod) {
  const State saved = st_;
  const uint32_t n = size();
  std::unique_ptr<uint8_t[]> old(new uint8_t[n]);
  std::memcpy(old.get(), buf_.get(), n);
  std::memset(buf_.get() + kPageHeaderSize, 0, n - kPageHeaderSize);

  st_ = State();
  st_.enc = enc;
  st_.param = param;
  st_.seconds = seconds;
  st_.vdod = vdod && enc != ValueEncoding::kXor;
  st_.reencodes = saved.reencodes;
  st_.frame = saved.frame;  // frame pages are millisecond pages: !seconds
  PageIterator it(std::string_view(reinterpret_cast<const char*>(old.get()), n));
  bool ok = true;
  while (ok && it.Next()) ok = EncodePoint(it.t(), it.v(), true) == Result::kOk;
  if (!ok || !it.status().ok() || st_.count != saved.count) {
    std::memset(buf_.get(), 0, buf_.cap);
    std::memcpy(buf_.get(), old.get(), n);
    st_ = saved;
    return false;
  }
  WriteHeader();
  return true;
}

// Decides the timestamp code of the next page from the one that ends: a
// frame page keeps its frame while it holds (escapes under 1/16 of the
// points, steps mostly not repeats, which delta-of-delta codes better);
// a costly millisecond page (4+ bits per timestamp) gets a frame fitted.
void PageBuilder::ChooseNextFrame() {
  const State& s = st_;
  if (s.frame) {
    if (s.frame_escapes * 16u > s.count || s.same_steps * 2u > s.count) frame_w_ = 0;
    return;
  }
  if (s.seconds || s.count < kOrderCheckPoints || s.ts_bits < 4u * s.count) return;
  if (frame_wait_ != 0) {
    --frame_wait_;
    return;
  }
  if (!FitFrame()) frame_wait_ = 16;  // timestamps a frame does not suit
}

// Finds the frame that codes this page's deltas in the fewest bits; keeps
// it for the next page if that is at least 1/8 cheaper than the page's own
// timestamp codes.
bool PageBuilder::FitFrame() {
  std::vector<int64_t> d;  // deltas of points 1.. (in ms, within +-2^32)
  d.reserve(st_.count);
  PageIterator it(data());
  bool first = true;
  for (Timestamp prev = 0; it.Next(); prev = it.t(), first = false) {
    if (!first) {
      d.push_back(static_cast<int64_t>(static_cast<uint64_t>(it.t()) -
                                       static_cast<uint64_t>(prev)));
    }
  }
  if (!it.status().ok() || d.empty()) return false;
  std::sort(d.begin(), d.end());
  const size_t n = d.size();
  // esc[i]: bits of escaping d[0..i), beyond the w bits every code has.
  std::vector<uint64_t> esc(n + 1, 0);
  for (size_t i = 0; i < n; ++i) {
    esc[i + 1] = esc[i] + kFrameEscapeLenBits +
                 static_cast<uint64_t>(BitWidth(ZigZag(static_cast<uint64_t>(d[i]))));
  }
  uint64_t best = ~uint64_t{0};
  TimestampFrame choice;
  for (int w = 1; w <= kMaxFrameWidth; ++w) {
    const int64_t span = (int64_t{1} << w) - 2;  // offsets 0..span code directly
    size_t j = 0;
    for (size_t i = 0; i < n; ++i) {
      if (j < i) j = i;
      while (j + 1 < n && d[j + 1] - d[i] <= span) ++j;
      const uint64_t cost = n * static_cast<uint64_t>(w) + esc[i] + (esc[n] - esc[j + 1]);
      if (cost < best) {
        best = cost;
        // Center the window's slack on the deltas it holds.
        choice.base = static_cast<uint64_t>(d[i] - (span - (d[j] - d[i])) / 2);
        choice.w = w;
      }
    }
  }
  best += kFrameWidthBits + kFrameBaseLenBits + BitWidth(ZigZag(choice.base));
  if (best * 8 >= uint64_t{st_.ts_bits} * 7) return false;
  frame_base_ = choice.base;
  frame_w_ = static_cast<uint8_t>(choice.w);
  return true;
}

}  // namespace sundial::compress
