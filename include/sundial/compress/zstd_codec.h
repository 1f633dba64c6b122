// ZstdCodec: compresses and decompresses whole blocks (cold pages, rollups)
// with zstd, reusing one compression and one decompression context.
//
// Block format: exactly one zstd frame (RFC 8878) whose header records the
// content size. No other framing; callers store the block length and their
// own checksum.
//
// Why reusable contexts: creating a zstd context costs about a megabyte of
// allocation at level 1-3. One codec per thread, at a low level, keeps memory
// bounded (about 0.6-1.3 MB to compress, about 100 KB to decompress) on a
// 512 MB machine. Decompression refuses windows above 1 MB
// (kMaxWindowLog) and outputs above the caller's limit, so corrupt input
// cannot make it allocate without bound.
//
// Thread-safety: none; use one codec per thread.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "sundial/common/status.h"

struct ZSTD_CCtx_s;
struct ZSTD_DCtx_s;

namespace sundial::compress {

class ZstdCodec {
 public:
  static constexpr int kDefaultLevel = 1;
  static constexpr int kMaxWindowLog = 20;

  // level: zstd compression level (1..19; low levels keep memory small).
  // Contexts are created lazily, on first use.
  explicit ZstdCodec(int level = kDefaultLevel);
  ZstdCodec(const ZstdCodec&) = delete;
  ZstdCodec& operator=(const ZstdCodec&) = delete;
  ~ZstdCodec();

  // Appends the compressed block of src to *dst. Errors: InvalidArgument
  // for a bad level, ResourceExhausted if a context cannot be allocated.
  Status Compress(std::string_view src, std::string* dst);

  // Replaces *dst with the content of block. Returns Corruption if block is
  // not exactly one valid frame with a recorded content size, and
  // ResourceExhausted if that size exceeds max_size.
  Status Decompress(std::string_view block, size_t max_size, std::string* dst);

 private:
  const int level_;
  ZSTD_CCtx_s* cctx_ = nullptr;
  ZSTD_DCtx_s* dctx_ = nullptr;
};

}  // namespace sundial::compress
