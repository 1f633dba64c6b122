// PageDecoder: decodes one page (page_format.h) many points at a time into
// caller arrays.
//
// Why: decoding is the inner loop of every query. Decoding a batch with the
// codec state in registers, one loop per value encoding (no per-point
// dispatch), and one bounds check per point instead of one per bit field
// makes it several times cheaper than a point-at-a-time decoder.
// PageIterator is built on it; use this class directly where a loop can
// take arrays.
//
// Safety: the decoder borrows the page and never reads outside it, whatever
// it contains. It reads the bulk of the page with 8-byte loads that stay at
// least 48 bytes before the end, and the last bytes from a zero-padded copy
// of them. Damage shows as a Corruption status; the points decoded before
// the damage are still returned.
//
// Thread-safety: one thread at a time. Reusable through Reset().
#pragma once

#include <cstdint>
#include <string_view>

#include "sundial/common/status.h"
#include "sundial/common/types.h"
#include "sundial/compress/page_format.h"

namespace sundial::compress {

class PageDecoder {
 public:
  // An exhausted decoder with an ok status.
  PageDecoder() = default;
  // Same as Reset(page).
  explicit PageDecoder(std::string_view page) { Reset(page); }
  PageDecoder(const PageDecoder&) = delete;
  PageDecoder& operator=(const PageDecoder&) = delete;

  // Starts over on page, whose bytes must stay valid and unchanged while the
  // decoder uses them (they are not copied). The page may be followed by
  // unused bytes. Validates the header: on error status() is Corruption and
  // Decode() returns 0.
  void Reset(std::string_view page);

  // Decodes the next points, at most max of them, in page order into t[i]
  // and v[i]. Returns how many were decoded: fewer than max only at the end
  // of the page or when damage was found (then status() is Corruption, and
  // every later call returns 0).
  uint32_t Decode(Timestamp* t, Value* v, uint32_t max);

  // Points not decoded yet (0 after an error).
  uint32_t left() const { return c_.left; }
  Status status() const { return status_; }
  // The validated header. REQUIRES: Reset() succeeded.
  const PageHeader& header() const { return h_; }

 private:
  // The codec state, copied into locals by the point loops.
  struct Cursor {
    const uint8_t* ptr = nullptr;  // bit buffer (src/compress/bit_buffer.h)
    uint64_t bits = 0;
    uint32_t count = 0;
    uint32_t left = 0;         // points not decoded yet
    uint32_t run_left = 0;     // points left in the current run
    uint32_t started = 0;      // points decoded, saturating at 2
    bool seen_native = false;  // int/decimal pages: a native value was decoded
    uint8_t width = 0xff;      // xor window: meaningful bits (0xff: none yet)
    uint8_t trail = 0;         //   and trailing zero bits
    uint64_t t = 0;            // current timestamp (ms, wrapping)
    uint64_t delta = 0;        // current step (ms, wrapping)
    uint64_t native = 0;       // last native value (int, mantissa or float bits)
    uint64_t vdelta = 0;       // last native value step (delta-of-delta pages)
    uint64_t ts_rice = 0;      // adaptive code states (src/compress/rice_code.h)
    uint64_t val_rice = 0;
    uint32_t ts_k = 0;         //   and their parameters k
    uint32_t val_k = 0;
  };
  // What the loops read but do not change.
  struct Params {
    const uint8_t* base = nullptr;   // the stream (in the page, or tail_bytes_)
    const uint8_t* limit = nullptr;  // fast loops stop when the buffer passes it
    uint32_t end_bits = 0;           // stream bits at base
    bool tail = false;               // base is tail_bytes_
    int shift = 0;                   // int pages: the delta shift
    double pow10 = 1;                // decimal pages: 10^scale
    uint64_t unit = 1;               // ms per timestamp unit
    uint64_t min_t = 0;              // the header's range, for checks
    uint64_t span = 0;               //   (max_t - min_t)
    uint64_t frame_base = 0;         // frame pages (version 2): the frame,
    uint64_t frame_escape = 0;       //   its escape code (2^w - 1)
    int frame_w = 0;                 //   and width
  };
  // One point loop per value encoding; kChecked: the first points of a
  // page and the tail copy, with a bounds check per point.
  using LoopFn = uint32_t (*)(PageDecoder*, Timestamp*, Value*, uint32_t);
  template <typename Codec, bool kFrame, bool kChecked>
  static uint32_t Loop(PageDecoder* d, Timestamp* t, Value* v, uint32_t max);
  template <typename Codec>
  void SelectLoops(bool frame);

  void Fail(const char* what);
  // Continues at bit pos of the stream, from the tail copy.
  void EnterTail(uint32_t pos);
  // Reads a version 2 page's frame; returns the bit position after it.
  bool ReadFrameFields(uint32_t size, uint32_t* pos);

  // The last bytes of a stream are decoded from a copy in tail_bytes_.
  static constexpr uint32_t kGuardBytes = 48;
  static constexpr uint32_t kTailBytes = 128;

  PageHeader h_;
  Status status_;
  Cursor c_;
  Params p_;
  LoopFn fast_ = nullptr;
  LoopFn checked_ = nullptr;
  uint8_t tail_bytes_[kTailBytes];
};

}  // namespace sundial::compress
