#pragma once
// Annotations for clang's thread-safety analysis (-Wthread-safety, an error in clang builds):
// a member says which capability guards it, a function which capabilities it needs, takes or
// gives back, and the compiler checks every access. Other compilers see nothing.
// https://clang.llvm.org/docs/ThreadSafetyAnalysis.html; core/mutex.h has the annotated mutex.
//
//   Mutex mu_;
//   int64_t next_ SLUICE_GUARDED_BY(mu_);
//   bool ready() const SLUICE_REQUIRES(mu_);   // callers hold mu_
//   void stop() SLUICE_EXCLUDES(mu_);          // callers must not (it locks mu_)

#if defined(__clang__)
#define SLUICE_THREAD_ANNOTATION(x) __attribute__((x))
#else
#define SLUICE_THREAD_ANNOTATION(x)
#endif

// A class whose objects are capabilities (a mutex, a turn); `name` appears in the warnings.
#define SLUICE_CAPABILITY(name) SLUICE_THREAD_ANNOTATION(capability(name))
// An RAII class that holds a capability for its lifetime (MutexLock).
#define SLUICE_SCOPED_CAPABILITY SLUICE_THREAD_ANNOTATION(scoped_lockable)

// The member is read and written only while `x` is held.
#define SLUICE_GUARDED_BY(x) SLUICE_THREAD_ANNOTATION(guarded_by(x))
// The data the member points to is read and written only while `x` is held.
#define SLUICE_PT_GUARDED_BY(x) SLUICE_THREAD_ANNOTATION(pt_guarded_by(x))

// The caller holds these capabilities (exclusively) when it calls the function.
#define SLUICE_REQUIRES(...) SLUICE_THREAD_ANNOTATION(requires_capability(__VA_ARGS__))
// The caller must not hold these capabilities (the function takes them itself).
#define SLUICE_EXCLUDES(...) SLUICE_THREAD_ANNOTATION(locks_excluded(__VA_ARGS__))
// The function takes (gives back) these capabilities; without arguments, the object itself.
#define SLUICE_ACQUIRE(...) SLUICE_THREAD_ANNOTATION(acquire_capability(__VA_ARGS__))
#define SLUICE_RELEASE(...) SLUICE_THREAD_ANNOTATION(release_capability(__VA_ARGS__))
#define SLUICE_TRY_ACQUIRE(...) SLUICE_THREAD_ANNOTATION(try_acquire_capability(__VA_ARGS__))
// Lock order, for documentation (checked only under -Wthread-safety-beta).
#define SLUICE_ACQUIRED_AFTER(...) SLUICE_THREAD_ANNOTATION(acquired_after(__VA_ARGS__))
// The function returns a reference to the capability `x`.
#define SLUICE_RETURN_CAPABILITY(x) SLUICE_THREAD_ANNOTATION(lock_returned(x))
// Turns the analysis off for one function: for code that hands capabilities around in ways the
// analysis cannot follow. Say why beside each use.
#define SLUICE_NO_THREAD_SAFETY_ANALYSIS SLUICE_THREAD_ANNOTATION(no_thread_safety_analysis)
