#include "compress/fuzz_targets.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "compress/reference_page_reader.h"
#include "sundial/common/coding.h"
#include "sundial/compress/page_builder.h"
#include "sundial/compress/page_decoder.h"
#include "sundial/compress/page_iterator.h"
#include "sundial/compress/zstd_codec.h"

namespace sundial::compress {
namespace {

void Check(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "fuzz check failed: %s\n", what);
    std::abort();
  }
}

// Reads little-endian values off the front of the input; zeros when empty.
class Input {
 public:
  Input(const uint8_t* d, size_t n) : d_(d), n_(n) {}
  bool empty() const { return n_ == 0; }
  uint64_t Take(int bytes) {
    uint64_t v = 0;
    for (int i = 0; i < bytes && n_ > 0; ++i, ++d_, --n_) {
      v |= static_cast<uint64_t>(*d_) << (8 * i);
    }
    return v;
  }

 private:
  const uint8_t* d_;
  size_t n_;
};

// The fast decoders return exactly the reference's points and fail exactly
// where it fails: PageIterator, and PageDecoder in batches of every size
// from 1 to 9.
void CheckAgainstReference(std::string_view page) {
  std::vector<Sample> want;
  ReferencePageReader ref(page);
  while (ref.Next()) want.push_back({ref.t(), ref.v()});
  PageIterator it(page);
  size_t i = 0;
  for (; it.Next(); ++i) {
    Check(i < want.size(), "iterator: extra point");
    Check(it.t() == want[i].t && it.v().BitEquals(want[i].v), "iterator: point differs");
  }
  Check(i == want.size(), "iterator: missing points");
  Check(it.status().ok() == ref.status().ok(), "iterator: status differs");
  const uint32_t batch = 1 + static_cast<uint32_t>(page.size() % 9);
  PageDecoder d(page);
  Timestamp t[9];
  Value v[9];
  i = 0;
  for (uint32_t n; (n = d.Decode(t, v, batch)) != 0;) {
    for (uint32_t j = 0; j < n; ++j, ++i) {
      Check(i < want.size(), "decoder: extra point");
      Check(t[j] == want[i].t && v[j].BitEquals(want[i].v), "decoder: point differs");
    }
    Check(n == batch || d.left() == 0, "decoder: short batch before the end");
  }
  Check(i == want.size(), "decoder: missing points");
  Check(d.status().ok() == ref.status().ok(), "decoder: status differs");
}

void CheckPage(std::string_view page, const std::vector<Sample>& want,
               uint32_t page_size) {
  Check(page.size() <= page_size, "page larger than its capacity");
  CheckAgainstReference(page);
  PageIterator it(page);
  size_t i = 0;
  while (it.Next()) {
    Check(i < want.size(), "extra point");
    Check(it.t() == want[i].t, "timestamp differs");
    Check(it.v().BitEquals(want[i].v), "value differs");
    ++i;
  }
  Check(it.status().ok(), "decode error on a built page");
  Check(i == want.size(), "missing points");
}

}  // namespace

void FuzzPageDecode(const uint8_t* data, size_t size) {
  const std::string_view page(reinterpret_cast<const char*>(data), size);
  CheckAgainstReference(page);
  PageIterator it(page);
  if (!it.status().ok()) {
    Check(!it.Next(), "Next after a bad header");
    return;
  }
  const PageHeader h = it.header();
  uint32_t n = 0;
  while (it.Next()) {
    Check(it.t() >= h.min_t && it.t() <= h.max_t, "timestamp outside header range");
    Check(++n <= h.count, "more points than the header's count");
    (void)it.v();
  }
  Check(!it.Next(), "Next after exhaustion");
  if (it.status().ok()) Check(n == h.count, "fewer points with an ok status");
  // Seek on the same bytes must be just as safe.
  it.Reset(page);
  if (it.Seek(h.min_t + static_cast<Timestamp>((h.max_t - h.min_t) / 2))) {
    Check(it.t() >= h.min_t + (h.max_t - h.min_t) / 2, "Seek landed early");
  }
}

void FuzzPageRoundTrip(const uint8_t* data, size_t size) {
  Input in(data, size);
  const uint64_t head = in.Take(2);
  const uint32_t page_size =
      kMinPageSize + static_cast<uint32_t>((head >> 1) % (kMaxPageSize - kMinPageSize + 1));
  PageBuilder b(page_size, (head & 1) != 0);
  std::vector<Sample> page;
  Timestamp t = static_cast<Timestamp>(in.Take(8));
  Value v = Value::Int(0);
  while (!in.empty()) {
    const auto op = static_cast<uint8_t>(in.Take(1));
    uint64_t step = 0;  // wraps, like any int64 sequence may
    switch (op & 7) {  // timestamp step
      case 0: break;
      case 1: step = 1000; break;
      case 2: step = static_cast<uint64_t>(static_cast<int8_t>(in.Take(1)) * 1000); break;
      case 3: step = static_cast<uint64_t>(static_cast<int16_t>(in.Take(2))); break;
      case 4: t = static_cast<Timestamp>(in.Take(8)); break;
      case 5:  // jittery milliseconds: pages after the first may use a frame
        step = static_cast<uint64_t>(10000 + static_cast<int8_t>(in.Take(1)) * 8);
        break;
      default: step = 10000; break;
    }
    t = static_cast<Timestamp>(static_cast<uint64_t>(t) + step);
    switch ((op >> 3) & 7) {  // value
      case 0: break;  // repeat
      case 1: v = Value::Int(static_cast<int64_t>(in.Take(8))); break;
      case 2: v = Value::Int(static_cast<int64_t>(
                  static_cast<uint64_t>(v.is_int() ? v.int_value() : 0) +
                  static_cast<uint64_t>(static_cast<int8_t>(in.Take(1))))); break;
      case 3: v = Value::Float(static_cast<double>(static_cast<int32_t>(in.Take(4))) / 100); break;
      case 4: v = Value::Float(BitsToDouble(in.Take(8))); break;
      case 5: v = Value::Float(static_cast<double>(static_cast<int16_t>(in.Take(2))) /
                               static_cast<double>(uint64_t{1} << (in.Take(1) % 20))); break;
      default: v = Value::Float(static_cast<double>(static_cast<int16_t>(in.Take(2))) / 1000); break;
    }
    if (!b.Append(t, v)) {
      Check(!b.empty(), "first point refused");
      CheckPage(b.data(), page, page_size);
      b.Reset();
      page.clear();
      Check(b.Append(t, v), "first point of a fresh page refused");
    }
    page.push_back({t, v});
    Check(b.count() == page.size(), "count differs");
  }
  CheckPage(b.data(), page, page_size);
}

void FuzzZstd(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  ZstdCodec codec;
  std::string out;
  (void)codec.Decompress(bytes, 1 << 20, &out);
  std::string block;
  Check(codec.Compress(bytes, &block).ok(), "compress failed");
  Check(codec.Decompress(block, size, &out).ok(), "decompress failed");
  Check(out == bytes, "zstd round trip differs");
}

}  // namespace sundial::compress
