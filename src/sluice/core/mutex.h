#pragma once
// Mutex, MutexLock and CondVar: std::mutex and std::condition_variable with the capability
// annotations that clang's thread-safety analysis needs (libstdc++'s carry none), in the manner
// of Abseil's. They add no cost: each method is the std one.
//
//   Mutex mu_;
//   CondVar cv_;
//   std::deque<Job> queue_ SLUICE_GUARDED_BY(mu_);
//
//   MutexLock lock(mu_);
//   while (queue_.empty()) cv_.wait(mu_);  // a wait is a loop, so the analysis sees the reads
//
// Memory ordering (as std::mutex): everything a thread wrote before it unlocks a Mutex is
// visible to the next thread that locks it, and to a thread that returns from CondVar::wait on
// it after a notify.

#include <chrono>
#include <condition_variable>
#include <mutex>

#include "sluice/core/thread_annotations.h"

namespace sluice {

class SLUICE_CAPABILITY("mutex") Mutex {
 public:
  Mutex() = default;
  Mutex(const Mutex&) = delete;
  Mutex& operator=(const Mutex&) = delete;

  void lock() SLUICE_ACQUIRE() { mu_.lock(); }
  void unlock() SLUICE_RELEASE() { mu_.unlock(); }

 private:
  friend class CondVar;
  std::mutex mu_;
};

// Holds a Mutex for its scope.
class SLUICE_SCOPED_CAPABILITY MutexLock {
 public:
  explicit MutexLock(Mutex& mu) SLUICE_ACQUIRE(mu) : mu_(mu) { mu_.lock(); }
  ~MutexLock() SLUICE_RELEASE() { mu_.unlock(); }
  MutexLock(const MutexLock&) = delete;
  MutexLock& operator=(const MutexLock&) = delete;

 private:
  Mutex& mu_;
};

// A condition variable used with a Mutex the caller holds. Waits may wake spuriously: callers
// wait in a loop on their condition.
class CondVar {
 public:
  CondVar() = default;
  CondVar(const CondVar&) = delete;
  CondVar& operator=(const CondVar&) = delete;

  // Releases `mu` while waiting for a notify; holds it again on return.
  void wait(Mutex& mu) SLUICE_REQUIRES(mu) {
    std::unique_lock<std::mutex> lock(mu.mu_, std::adopt_lock);
    cv_.wait(lock);
    lock.release();  // `mu` stays locked: the caller's
  }
  // As wait(), until `deadline` at the latest; false when the deadline passed.
  bool wait_until(Mutex& mu, std::chrono::steady_clock::time_point deadline) SLUICE_REQUIRES(mu) {
    std::unique_lock<std::mutex> lock(mu.mu_, std::adopt_lock);
    const bool notified = cv_.wait_until(lock, deadline) == std::cv_status::no_timeout;
    lock.release();
    return notified;
  }
  void notify_one() { cv_.notify_one(); }
  void notify_all() { cv_.notify_all(); }

 private:
  std::condition_variable cv_;
};

}  // namespace sluice
