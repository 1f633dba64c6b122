// PageBuilder: appends (timestamp, value) points of one series into one
// fixed-capacity page (format: page_format.h).
//
// Why: a series' open page (its head chunk) lives in RAM until it is full,
// then is copied out as is. With 10,000+ series each holding one builder, a
// builder is its page buffer plus about 160 bytes of encoder state, and
// appending never allocates.
//
// Encoding choice. The encoder cannot see future values, so it starts with
// the cheapest encoding that fits the first point (ints: int; floats: the
// smallest decimal scale that reproduces the double exactly, else xor;
// timestamps in seconds when they are whole seconds) and widens when a point
// does not fit:
//   - a timestamp that is not a whole second in a seconds page, a decimal
//     that needs a larger scale, or an int delta with fewer trailing zero
//     bits than the page's delta shift (int pages start assuming every
//     delta is a multiple of 2^15 and lower that as deltas arrive): the
//     page's points are re-encoded in the wider encoding (decoding and re-encoding one page is cheap, and it
//     happens only a few times per page at most);
//   - int and decimal values start as deltas; with value_dod, when the page
//     fills (or at its 32nd point) and delta-of-delta looks at least 1/8
//     cheaper (steady counters), the page is re-encoded that way, and the
//     reverse;
//   - a value of the other type (an int in a float page or the reverse), or
//     a float that is not a short decimal in a decimal page: the value is
//     escaped (raw 64 bits) while such values are rare (< 1/4 of the page);
//     once they are common, the page is re-encoded with that type native
//     (ints; floats as decimal or xor).
//   - millisecond timestamps with jitter: when a page's delta-of-delta
//     codes turn out costly, Reset() fits a frame (page_format.h, version
//     2) to that page's deltas and, if it is clearly cheaper, the pages
//     after it use frame timestamps from their first point, for as long as
//     the frame holds (few escapes, steps that are not mostly repeats).
//     The choice carries across Reset() only, so a builder reused for the
//     next page of its series (as storage does) keeps it.
// If a re-encoded page no longer fits its capacity, the value is escaped
// instead, and if that does not fit either, Append returns false: the caller
// seals the page and starts a new one.
//
// Reading the open page (the head): data() is at every moment a complete,
// valid page of all points appended so far; read it with a PageIterator
// while holding whatever lock serialises Append, or copy it.
//
// Thread-safety: none. One writer; readers must exclude the writer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>

#include "sundial/common/types.h"
#include "sundial/compress/bit_stream.h"
#include "sundial/compress/buffer_pool.h"
#include "sundial/compress/page_format.h"

namespace sundial::compress {

class PageBuilder {
 public:
  // REQUIRES: kMinPageSize <= page_size <= kMaxPageSize. The page buffer
  // starts small (kInitialCapacity bytes) and grows by half as points
  // arrive, up to page_size plus 32 bytes of slack: an idle series with a few points
  // holds tens of bytes, not a whole page.
  // value_dod: let int and decimal pages switch to delta-of-delta values
  // when that is clearly cheaper (see above); steady counters then take
  // almost no space (a page may then hold up to kMaxPointsPerPage points).
  // pool: where the page buffer comes from (null: operator new[]); it must
  // outlive the builder. The storage engine passes one pool for all its
  // open pages (see buffer_pool.h for why).
  explicit PageBuilder(uint32_t page_size = kDefaultPageSize, bool value_dod = true,
                       BufferPool* pool = nullptr);
  PageBuilder(const PageBuilder&) = delete;
  PageBuilder& operator=(const PageBuilder&) = delete;
  PageBuilder(PageBuilder&&) noexcept;
  PageBuilder& operator=(PageBuilder&&) noexcept;
  ~PageBuilder();

  // Appends one point. Returns true if it was added. Returns false, leaving
  // the page unchanged, when it does not fit: the page would exceed
  // page_size() bytes, would hold more than kMaxPointsPerPage points, or
  // would span more than kMaxPageSpanMs. The first point of an empty page
  // always fits. Timestamps may go backwards or repeat; points are kept in
  // arrival order. Allocates only when the page buffer grows (a few times
  // per page, in steps of 64 bytes up to the full size) and in the rare
  // re-encoding described above (temporary page-sized buffers).
  [[nodiscard]] bool Append(Timestamp t, Value v);

  // The complete page: header plus bit stream, size() bytes. Valid until
  // the next Append/Reset or until the builder is destroyed or moved. This
  // is both the finished page and the view of the open head page.
  std::string_view data() const;
  // Bytes the page occupies now (kPageHeaderSize when empty).
  uint32_t size() const;
  uint32_t page_size() const { return page_size_; }
  uint32_t count() const { return st_.count; }
  bool empty() const { return st_.count == 0; }
  // REQUIRES: !empty().
  Timestamp first_t() const { return st_.first_t; }
  Timestamp min_t() const { return st_.min_t; }
  Timestamp max_t() const { return st_.max_t; }
  Timestamp last_t() const { return st_.last_t; }
  // The page's current encoding, as recorded in its header.
  ValueEncoding value_encoding() const { return st_.enc; }
  uint8_t decimal_scale() const {
    return st_.enc == ValueEncoding::kDecimal ? st_.param : 0;
  }
  uint8_t int_shift() const { return st_.enc == ValueEncoding::kInt ? st_.param : 0; }
  bool value_dod() const { return st_.vdod; }
  bool seconds() const { return st_.seconds; }

  // Empties the page for reuse, keeping the timestamp frame chosen from the
  // page's points (see above). The buffer goes back to its initial size
  // (one allocation when it had grown). May allocate a temporary array when
  // it fits a new frame.
  void Reset();

  // Heap plus object bytes held by this builder.
  size_t MemoryUsage() const { return sizeof(*this) + buf_.cap; }
  // Bytes allocated for the page buffer now.
  uint32_t capacity() const { return buf_.cap; }

  // The page buffer's first size (header plus a few points plus slack).
  static constexpr uint32_t kInitialCapacity = 64;

 private:
  // Bytes past size() that one point may write: its bits plus the 8-byte
  // word BitWriter loads and stores.
  static constexpr uint32_t kSlack = 32;

  // Everything the encoder knows; copied whole to roll back a re-encode.
  struct State {
    uint32_t pos = 0;        // bits used in the stream
    uint32_t run_at = 0;     // bit position of the open run's count field
    uint16_t count = 0;
    uint16_t run_len = 0;    // 0: no open run
    uint16_t repeats = 0;    // trailing points coded "00"
    uint16_t escapes = 0;
    uint16_t frame_escapes = 0;  // frame pages: escaped timestamp codes
    uint16_t same_steps = 0;     //   and steps equal to the one before
    uint8_t reencodes = 0;
    ValueEncoding enc = ValueEncoding::kInt;
    bool seconds = false;
    uint8_t param = 0;       // decimal scale or int delta shift (page_format.h)
    uint8_t lead = 0xff;     // xor window; 0xff: none yet
    uint8_t trail = 0;
    bool last_native = false;  // the last point was coded natively
    bool has_native = false;   // some point was coded natively
    bool vdod = false;         // values coded as delta-of-delta
    bool frame = false;        // frame timestamps (version 2): frame_base_, frame_w_
    uint32_t cost_delta = 0;   // estimated value bits in either order
    uint32_t cost_dod = 0;
    uint32_t ts_bits = 0;      // bits of all timestamp codes
    uint64_t prev_native = 0;  // int, mantissa or float bits of the last native value
    int64_t prev_x = 0;        // last timestamp in page units
    uint64_t prev_delta = 0;   // in page units, wrapping
    uint64_t prev_step = 0;    // the same in ms: t - the timestamp before
    uint64_t prev_vdelta = 0;  // last native value delta (int/decimal pages)
    uint64_t ts_rice = 0;      // adaptive code states (src/compress/rice_code.h)
    uint64_t val_rice = 0;
    Timestamp first_t = 0, min_t = 0, max_t = 0, last_t = 0;
  };

  enum class Result : uint8_t { kOk, kFull, kNotNative };
  static constexpr uint8_t kMaxReencodes = 24;  // per page, bounds the work
  static constexpr uint16_t kOrderCheckPoints = 32;
  static constexpr uint32_t kGrowStep = 64;

  // The page buffer: cap bytes from pool (or new[] if pool is null).
  struct Buffer {
    uint8_t* p = nullptr;
    uint32_t cap = 0;
    BufferPool* pool = nullptr;

    Buffer() = default;
    Buffer(BufferPool* from, uint32_t bytes);  // zeroed
    Buffer(Buffer&& o) noexcept : p(o.p), cap(o.cap), pool(o.pool) { o.p = nullptr; }
    Buffer& operator=(Buffer&& o) noexcept;
    ~Buffer() { Release(); }
    void Release();
    uint8_t* get() const { return p; }
  };

  // The steady path for pages of encoding E (== st_.enc).
  template <ValueEncoding E>
  bool AppendSteady(Timestamp t, Value v);
  bool AppendSlow(Timestamp t, Value v);
  bool FinishSteady(Timestamp t, Timestamp lo, Timestamp hi);
  void ChooseInitialEncoding(Timestamp t, Value v);
  // Encodes one point in the current encoding. A value that is not native
  // to it is escaped if allow_escape, else kNotNative is returned. On
  // kFull/kNotNative nothing changed.
  Result EncodePoint(Timestamp t, Value v, bool allow_escape);
  struct ValueStep;
  // Each for pages of encoding E, and for st_.enc (the *Any forms).
  template <ValueEncoding E>
  bool Native(Value v, uint64_t bits, uint64_t* native) const;
  bool NativeAny(Value v, uint64_t bits, uint64_t* native) const;
  template <ValueEncoding E>
  bool ZeroCode(uint64_t native, uint64_t* dprime) const;
  bool ZeroCodeAny(uint64_t native, uint64_t* dprime) const;
  ValueStep WriteValueAny(BitWriter* w, Value v, uint64_t bits, uint64_t native,
                          bool is_native) const;
  template <ValueEncoding E>
  ValueStep WriteValue(BitWriter* w, Value v, uint64_t bits, uint64_t native,
                       bool is_native) const;
  void StartRun(BitWriter* w);
  void KeepValueStep(const ValueStep& n);
  void ExtendRun(BitWriter* w, int64_t x, uint64_t native, uint64_t dprime);
  // Picks a wider encoding for v (which is not native) and re-encodes.
  void Widen(Value v);
  void ChooseFloatEncoding(double v, ValueEncoding* enc, uint8_t* scale) const;
  // Lowers the int delta shift so that the delta to v fits.
  void NarrowShift(int64_t v);
  // Re-encodes every point in the given encoding. On failure (no room, or
  // too many re-encodes) restores the page and returns false.
  bool Reencode(ValueEncoding enc, uint8_t param, bool seconds, bool vdod);
  // Reencode's work. REQUIRES: the buffer has its full size.
  bool ReencodeFull(ValueEncoding enc, uint8_t param, bool seconds, bool vdod);
  // The buffer size for `need` bytes: a multiple of kGrowStep, or the full
  // page_size + kSlack when that is close.
  static uint32_t CapacityFor(uint32_t need, uint32_t page_size);
  // Moves the page into a zeroed buffer of cap bytes.
  // REQUIRES: cap >= size() + kSlack.
  void Resize(uint32_t cap);
  bool SwitchOrder();
  // Called by Reset(): keeps, drops or fits the next page's frame.
  void ChooseNextFrame();
  bool FitFrame();
  void WriteHeader();
  void UpdateHeader(Timestamp t);

  uint32_t page_size_;
  bool allow_value_dod_;
  // The timestamp frame of the page (if st_.frame) and of the pages after
  // it: only Reset() changes it. frame_w_ == 0: none.
  uint8_t frame_w_ = 0;
  uint8_t frame_wait_ = 0;  // pages to skip before fitting a frame again
  // At most page_size_ + kSlack bytes, zero past size(); Append first makes
  // it at least size() + kSlack.
  Buffer buf_;
  State st_;
  uint64_t frame_base_ = 0;
};

}  // namespace sundial::compress
