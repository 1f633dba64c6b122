// Must NOT compile under clang -Wthread-safety -Werror: a GUARDED_BY field is
// written without its mutex. The ThreadSafety.unguarded_access
// test compiles this file and expects failure.
#include "sundial/common/mutex.h"

namespace {
struct Counter {
  sundial::Mutex mu;
  int n GUARDED_BY(mu) = 0;
  void BumpWithoutLock() { ++n; }
};
}  // namespace

int main() {
  Counter c;
  c.BumpWithoutLock();
  return 0;
}
