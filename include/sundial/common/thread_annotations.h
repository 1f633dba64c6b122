// Clang thread-safety analysis attributes (-Wthread-safety), as macros that
// compile to nothing on other compilers. See
// https://clang.llvm.org/docs/ThreadSafetyAnalysis.html for their meaning.
// The annotated lock types are in sundial/common/mutex.h.
#ifndef SUNDIAL_COMMON_THREAD_ANNOTATIONS_H_
#define SUNDIAL_COMMON_THREAD_ANNOTATIONS_H_

#if defined(__clang__)
#define SUNDIAL_THREAD_ANNOTATION(x) __attribute__((x))
#else
#define SUNDIAL_THREAD_ANNOTATION(x)
#endif

#define CAPABILITY(x) SUNDIAL_THREAD_ANNOTATION(capability(x))
#define SCOPED_CAPABILITY SUNDIAL_THREAD_ANNOTATION(scoped_lockable)
#define GUARDED_BY(x) SUNDIAL_THREAD_ANNOTATION(guarded_by(x))
#define PT_GUARDED_BY(x) SUNDIAL_THREAD_ANNOTATION(pt_guarded_by(x))
#define ACQUIRED_BEFORE(...) SUNDIAL_THREAD_ANNOTATION(acquired_before(__VA_ARGS__))
#define ACQUIRED_AFTER(...) SUNDIAL_THREAD_ANNOTATION(acquired_after(__VA_ARGS__))
#define REQUIRES(...) SUNDIAL_THREAD_ANNOTATION(requires_capability(__VA_ARGS__))
#define REQUIRES_SHARED(...) \
  SUNDIAL_THREAD_ANNOTATION(requires_shared_capability(__VA_ARGS__))
#define ACQUIRE(...) SUNDIAL_THREAD_ANNOTATION(acquire_capability(__VA_ARGS__))
#define ACQUIRE_SHARED(...) \
  SUNDIAL_THREAD_ANNOTATION(acquire_shared_capability(__VA_ARGS__))
#define RELEASE(...) SUNDIAL_THREAD_ANNOTATION(release_capability(__VA_ARGS__))
#define RELEASE_SHARED(...) \
  SUNDIAL_THREAD_ANNOTATION(release_shared_capability(__VA_ARGS__))
#define TRY_ACQUIRE(...) SUNDIAL_THREAD_ANNOTATION(try_acquire_capability(__VA_ARGS__))
#define EXCLUDES(...) SUNDIAL_THREAD_ANNOTATION(locks_excluded(__VA_ARGS__))
#define ASSERT_CAPABILITY(x) SUNDIAL_THREAD_ANNOTATION(assert_capability(x))
#define ASSERT_SHARED_CAPABILITY(x) \
  SUNDIAL_THREAD_ANNOTATION(assert_shared_capability(x))
#define RETURN_CAPABILITY(x) SUNDIAL_THREAD_ANNOTATION(lock_returned(x))
#define NO_THREAD_SAFETY_ANALYSIS SUNDIAL_THREAD_ANNOTATION(no_thread_safety_analysis)

#endif  // SUNDIAL_COMMON_THREAD_ANNOTATIONS_H_
