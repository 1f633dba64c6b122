#include "sundial/compress/zstd_codec.h"

#include <zstd.h>

namespace sundial::compress {

ZstdCodec::ZstdCodec(int level) : level_(level) {}

ZstdCodec::~ZstdCodec() {
  ZSTD_freeCCtx(cctx_);
  ZSTD_freeDCtx(dctx_);
}

Status ZstdCodec::Compress(std::string_view src, std::string* dst) {
  if (level_ < 1 || level_ > ZSTD_maxCLevel()) {
    return Status::InvalidArgument("zstd: compression level out of range");
  }
  if (cctx_ == nullptr) {
    cctx_ = ZSTD_createCCtx();
    if (cctx_ == nullptr) return Status::ResourceExhausted("zstd: no memory for a context");
  }
  ZSTD_CCtx_reset(cctx_, ZSTD_reset_session_and_parameters);
  ZSTD_CCtx_setParameter(cctx_, ZSTD_c_compressionLevel, level_);
  ZSTD_CCtx_setParameter(cctx_, ZSTD_c_contentSizeFlag, 1);
  ZSTD_CCtx_setParameter(cctx_, ZSTD_c_windowLog, kMaxWindowLog);
  ZSTD_CCtx_setPledgedSrcSize(cctx_, src.size());
  const size_t old = dst->size();
  const size_t bound = ZSTD_compressBound(src.size());
  dst->resize(old + bound);
  const size_t n = ZSTD_compress2(cctx_, &(*dst)[old], bound, src.data(), src.size());
  if (ZSTD_isError(n)) {
    dst->resize(old);
    return Status::InvalidArgument("zstd: compress", ZSTD_getErrorName(n));
  }
  dst->resize(old + n);
  return Status::OK();
}

Status ZstdCodec::Decompress(std::string_view block, size_t max_size,
                             std::string* dst) {
  dst->clear();
  const unsigned long long size = ZSTD_getFrameContentSize(block.data(), block.size());
  if (size == ZSTD_CONTENTSIZE_ERROR || size == ZSTD_CONTENTSIZE_UNKNOWN) {
    return Status::Corruption("zstd: not a frame with a content size");
  }
  if (size > max_size) {
    return Status::ResourceExhausted("zstd: block larger than the limit");
  }
  const size_t frame = ZSTD_findFrameCompressedSize(block.data(), block.size());
  if (ZSTD_isError(frame) || frame != block.size()) {
    return Status::Corruption("zstd: block is not exactly one frame");
  }
  if (dctx_ == nullptr) {
    dctx_ = ZSTD_createDCtx();
    if (dctx_ == nullptr) return Status::ResourceExhausted("zstd: no memory for a context");
    ZSTD_DCtx_setParameter(dctx_, ZSTD_d_windowLogMax, kMaxWindowLog);
  }
  dst->resize(static_cast<size_t>(size));
  const size_t n = ZSTD_decompressDCtx(dctx_, dst->empty() ? nullptr : &(*dst)[0],
                                       dst->size(), block.data(), block.size());
  if (ZSTD_isError(n) || n != size) {
    dst->clear();
    return Status::Corruption("zstd: decompress",
                              ZSTD_isError(n) ? ZSTD_getErrorName(n) : "size mismatch");
  }
  return Status::OK();
}

}  // namespace sundial::compress
