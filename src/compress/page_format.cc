#include "sundial/compress/page_format.h"

#include "sundial/common/coding.h"

namespace sundial::compress {

uint8_t EncodingByte(ValueEncoding e, bool seconds, uint8_t param, bool value_dod) {
  return static_cast<uint8_t>(static_cast<uint8_t>(e) | (seconds ? 0x4 : 0) |
                              (value_dod ? 0x8 : 0) | (param << 4));
}

Status DecodePageHeader(std::string_view page, PageHeader* h) {
  if (page.size() < kPageHeaderSize) {
    return Status::Corruption("page: shorter than its header");
  }
  const char* p = page.data();
  const auto version = static_cast<uint8_t>(p[0]);
  if (version != kPageFormatVersion && version != kFramePageFormatVersion) {
    return Status::Corruption("page: unknown format version");
  }
  h->frame = version == kFramePageFormatVersion;
  const auto enc = static_cast<uint8_t>(p[1]);
  const uint8_t kind = enc & 0x3;
  const auto param = static_cast<uint8_t>(enc >> 4);
  if (kind > 2) {
    return Status::Corruption("page: invalid encoding byte");
  }
  h->value_encoding = static_cast<ValueEncoding>(kind);
  if (h->value_encoding == ValueEncoding::kXor && (param != 0 || (enc & 0x8) != 0)) {
    return Status::Corruption("page: parameter on an xor page");
  }
  h->value_dod = (enc & 0x8) != 0;
  h->seconds = (enc & 0x4) != 0;
  if (h->frame && h->seconds) {
    return Status::Corruption("page: seconds flag on a frame page");
  }
  h->param = param;
  h->count = DecodeFixed16(p + 2);
  h->first_t = static_cast<Timestamp>(DecodeFixed64(p + 4));
  const uint64_t back = DecodeFixed32(p + 12);
  const uint64_t ahead = DecodeFixed32(p + 16);
  if (back + ahead > kMaxPageSpanMs) {
    return Status::Corruption("page: time span too large");
  }
  const auto first = static_cast<uint64_t>(h->first_t);
  // min_t = first_t - back and max_t = first_t + ahead must not wrap.
  if (h->first_t < kMinTimestamp + static_cast<Timestamp>(back) ||
      h->first_t > kMaxTimestamp - static_cast<Timestamp>(ahead)) {
    return Status::Corruption("page: time range out of bounds");
  }
  h->min_t = static_cast<Timestamp>(first - back);
  h->max_t = static_cast<Timestamp>(first + ahead);
  if (h->seconds && (h->first_t % 1000 != 0 || h->min_t % 1000 != 0 ||
                     h->max_t % 1000 != 0)) {
    return Status::Corruption("page: seconds page with a millisecond time");
  }
  return Status::OK();
}

void EncodePageHeader(const PageHeader& h, char* dst) {
  dst[0] = static_cast<char>(h.frame ? kFramePageFormatVersion : kPageFormatVersion);
  dst[1] = static_cast<char>(EncodingByte(h.value_encoding, h.seconds, h.param, h.value_dod));
  EncodeFixed16(dst + 2, static_cast<uint16_t>(h.count));
  EncodeFixed64(dst + 4, static_cast<uint64_t>(h.first_t));
  EncodeFixed32(dst + 12, static_cast<uint32_t>(static_cast<uint64_t>(h.first_t) -
                                                static_cast<uint64_t>(h.min_t)));
  EncodeFixed32(dst + 16, static_cast<uint32_t>(static_cast<uint64_t>(h.max_t) -
                                                static_cast<uint64_t>(h.first_t)));
}

}  // namespace sundial::compress
