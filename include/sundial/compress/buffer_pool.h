// BufferPool: memory for the page buffers of open pages (PageBuilder).
//
// Why: a server with 100,000 series holds one open page per series, and
// each page buffer grows in small steps as its page fills and goes back to
// its first size when the page is sealed. From malloc, the chunks those
// steps free end up between live ones; the heap keeps them and cannot give
// them back (measured: about 180 bytes per series at 100,000 live series,
// a quarter of the server's memory). Here every chunk size has slabs of its
// own, so a freed chunk is reused by the next buffer of that size, and a
// slab whose chunks are all free goes back to the system.
//
// Chunks are multiples of kGranule bytes. Requests above kMaxChunk bytes
// come from operator new[]. Slabs are kSlabSize bytes from mmap, aligned to
// their size (a chunk finds its slab by masking its address), and their
// chunks are carved as they are first needed, so a slab's untouched pages
// cost no memory. A chunk is taken from the lowest-addressed slab of its
// size that has room, so the others drain and are given back. One empty
// slab per size is kept to absorb an allocate/free pair at a slab boundary.
//
// Thread-safety: every method may be called from any thread (one mutex).
// Allocation is rare (a few times per page), not per point.
#pragma once

#include <cstddef>
#include <cstdint>
#include <set>

#include "sundial/common/mutex.h"

namespace sundial::compress {

class BufferPool {
 public:
  static constexpr uint32_t kGranule = 32;
  static constexpr uint32_t kMaxChunk = 4096;
  static constexpr size_t kSlabSize = 64 * 1024;

  BufferPool() = default;
  // REQUIRES: every buffer was freed.
  ~BufferPool();
  BufferPool(const BufferPool&) = delete;
  BufferPool& operator=(const BufferPool&) = delete;

  // The number of bytes Allocate(size) makes usable: size rounded up to
  // kGranule (sizes above kMaxChunk unchanged). REQUIRES: size > 0.
  static uint32_t ChunkSize(uint32_t size);

  // At least `size` usable bytes (ChunkSize(size)), uninitialised. Throws
  // std::bad_alloc when the system has no memory, as new does.
  uint8_t* Allocate(uint32_t size);
  // Returns p, which Allocate(size) gave with this same size.
  void Free(uint8_t* p, uint32_t size);

  // Bytes of chunks handed out and not freed.
  size_t BytesInUse() const;
  // Bytes the pool holds: in-use chunks plus the carved part of every slab
  // (free chunks, slab headers) and the large buffers. What it costs in
  // memory, give or take the untouched tails of slabs.
  size_t BytesHeld() const;
  // BytesHeld() - BytesInUse(), read at one moment: free chunks and slab
  // headers.
  size_t BytesFree() const;
  // Slabs mapped now (for tests).
  size_t SlabCount() const;

 private:
  struct Slab;
  static constexpr uint32_t kClasses = kMaxChunk / kGranule + 1;

  Slab* NewSlab(uint32_t cls) REQUIRES(mu_);
  void ReleaseSlab(Slab* slab) REQUIRES(mu_);

  mutable Mutex mu_;
  // Per class: slabs with a free or uncarved chunk, by address.
  std::set<Slab*> partial_[kClasses] GUARDED_BY(mu_);
  uint8_t empty_[kClasses] GUARDED_BY(mu_) = {};  // empty slabs kept (0 or 1)
  size_t in_use_ GUARDED_BY(mu_) = 0;
  size_t carved_ GUARDED_BY(mu_) = 0;  // carved chunk and header bytes of all slabs
  size_t large_ GUARDED_BY(mu_) = 0;   // bytes of buffers from operator new[]
  size_t slabs_ GUARDED_BY(mu_) = 0;
};

}  // namespace sundial::compress
