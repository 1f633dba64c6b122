// Must compile under clang -Wthread-safety -Werror: the same shape as
// unguarded_access.cc with the lock taken, so a failure of that test is due
// to the analysis and not to a broken header.
#include "sundial/common/mutex.h"

namespace {
struct Counter {
  sundial::Mutex mu;
  int n GUARDED_BY(mu) = 0;
  void Bump() {
    sundial::MutexLock l(&mu);
    ++n;
  }
  void BumpLocked() REQUIRES(mu) { ++n; }
};
}  // namespace

int main() {
  Counter c;
  c.Bump();
  c.mu.Lock();
  c.BumpLocked();
  c.mu.Unlock();
  return 0;
}
