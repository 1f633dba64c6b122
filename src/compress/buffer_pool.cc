#include "sundial/compress/buffer_pool.h"

#include <sys/mman.h>

#include <cassert>
#include <cstring>
#include <new>

#if defined(__SANITIZE_ADDRESS__)
#define SUNDIAL_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SUNDIAL_ASAN 1
#endif
#endif
#ifdef SUNDIAL_ASAN
#include <sanitizer/asan_interface.h>
// Free and uncarved chunks are poisoned, so AddressSanitizer still sees a
// page buffer overrun into its neighbour.
#define POOL_POISON(p, n) ASAN_POISON_MEMORY_REGION(p, n)
#define POOL_UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION(p, n)
#else
#define POOL_POISON(p, n) ((void)(p), (void)(n))
#define POOL_UNPOISON(p, n) ((void)(p), (void)(n))
#endif

namespace sundial::compress {

// The head of a slab; its chunks follow it. A free chunk holds the address
// of the next free chunk of its slab.
struct BufferPool::Slab {
  uint8_t* free = nullptr;  // free chunks, LIFO
  uint32_t cls = 0;
  uint32_t live = 0;     // chunks handed out
  uint32_t carved = 0;   // chunks carved so far
  uint32_t capacity = 0;
  bool listed = false;   // in partial_[cls]

  static constexpr size_t kHeader = 64;
  uint8_t* chunk(uint32_t i) {
    return reinterpret_cast<uint8_t*>(this) + kHeader + static_cast<size_t>(i) * cls * kGranule;
  }
  bool full() const { return free == nullptr && carved == capacity; }
};

static_assert(sizeof(void*) <= BufferPool::kGranule, "a free chunk holds a pointer");

BufferPool::~BufferPool() {
  MutexLock l(&mu_);
  assert(in_use_ == 0);
  for (std::set<Slab*>& slabs : partial_) {
    for (Slab* s : slabs) {
      POOL_UNPOISON(s, kSlabSize);  // the addresses may be mapped again
      munmap(s, kSlabSize);
    }
  }
}

uint32_t BufferPool::ChunkSize(uint32_t size) {
  assert(size > 0);
  if (size > kMaxChunk) return size;
  return (size + kGranule - 1) / kGranule * kGranule;
}

uint8_t* BufferPool::Allocate(uint32_t size) {
  if (size > kMaxChunk) {
    uint8_t* p = new uint8_t[size];
    MutexLock l(&mu_);
    large_ += size;
    return p;
  }
  const uint32_t cls = ChunkSize(size) / kGranule;
  MutexLock l(&mu_);
  Slab* s = partial_[cls].empty() ? NewSlab(cls) : *partial_[cls].begin();
  if (s->live == 0) --empty_[cls];
  uint8_t* p;
  if (s->free != nullptr) {
    p = s->free;
    POOL_UNPOISON(p, cls * kGranule);
    std::memcpy(&s->free, p, sizeof(uint8_t*));
  } else {
    p = s->chunk(s->carved++);
    POOL_UNPOISON(p, cls * kGranule);
    carved_ += cls * kGranule;
  }
  ++s->live;
  in_use_ += cls * kGranule;
  if (s->full()) {
    partial_[cls].erase(s);
    s->listed = false;
  }
  return p;
}

void BufferPool::Free(uint8_t* p, uint32_t size) {
  if (p == nullptr) return;
  if (size > kMaxChunk) {
    delete[] p;
    MutexLock l(&mu_);
    large_ -= size;
    return;
  }
  Slab* s = reinterpret_cast<Slab*>(reinterpret_cast<uintptr_t>(p) & ~(kSlabSize - 1));
  const uint32_t cls = ChunkSize(size) / kGranule;
  MutexLock l(&mu_);
  assert(s->cls == cls && s->live > 0);
  std::memcpy(p, &s->free, sizeof(uint8_t*));
  POOL_POISON(p, cls * kGranule);
  s->free = p;
  --s->live;
  in_use_ -= cls * kGranule;
  if (!s->listed) {
    partial_[cls].insert(s);
    s->listed = true;
  }
  if (s->live > 0) return;
  if (empty_[cls] > 0) {
    ReleaseSlab(s);
  } else {
    ++empty_[cls];
  }
}

BufferPool::Slab* BufferPool::NewSlab(uint32_t cls) {
  static_assert(sizeof(Slab) <= Slab::kHeader, "a slab's head fits before its chunks");
  // Twice the size, then the unaligned ends are unmapped.
  void* raw = mmap(nullptr, 2 * kSlabSize, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                   -1, 0);
  if (raw == MAP_FAILED) throw std::bad_alloc();
  const uintptr_t start = reinterpret_cast<uintptr_t>(raw);
  const uintptr_t aligned = (start + kSlabSize - 1) & ~(kSlabSize - 1);
  if (aligned > start) munmap(raw, aligned - start);
  const uintptr_t end = start + 2 * kSlabSize;
  if (end > aligned + kSlabSize) {
    munmap(reinterpret_cast<void*>(aligned + kSlabSize), end - aligned - kSlabSize);
  }
  Slab* s = new (reinterpret_cast<void*>(aligned)) Slab();
  s->cls = cls;
  s->capacity = static_cast<uint32_t>((kSlabSize - Slab::kHeader) / (cls * kGranule));
  POOL_POISON(s->chunk(0), kSlabSize - Slab::kHeader);
  ++slabs_;
  carved_ += Slab::kHeader;
  ++empty_[cls];
  partial_[cls].insert(s);
  s->listed = true;
  return s;
}

void BufferPool::ReleaseSlab(Slab* s) {
  partial_[s->cls].erase(s);
  carved_ -= Slab::kHeader + static_cast<size_t>(s->carved) * s->cls * kGranule;
  --slabs_;
  POOL_UNPOISON(s, kSlabSize);  // the addresses may be mapped again
  munmap(s, kSlabSize);
}

size_t BufferPool::BytesInUse() const {
  MutexLock l(&mu_);
  return in_use_ + large_;
}

size_t BufferPool::BytesHeld() const {
  MutexLock l(&mu_);
  return carved_ + large_;
}

size_t BufferPool::BytesFree() const {
  MutexLock l(&mu_);
  return carved_ - in_use_;
}

size_t BufferPool::SlabCount() const {
  MutexLock l(&mu_);
  return slabs_;
}

}  // namespace sundial::compress
