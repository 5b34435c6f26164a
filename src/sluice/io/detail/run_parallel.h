#pragma once
// Internal: runs independent listing tasks on a ThreadPool or on short-lived std::threads.

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

#include "sluice/parallel/thread_pool.h"

namespace sluice::io_detail {

// Upper bound on threads started when no pool is given: listing is bound by metadata latency
// (more threads help on network file systems) but each thread costs a stack.
inline constexpr int kMaxListingThreads = 16;

// Runs fn(i) for every i in [0, n), load-balanced through a shared counter, and rethrows the
// first exception once every started task has stopped (remaining indices are skipped after a
// failure). With `pool`, runs on its workers; otherwise on the calling thread plus up to
// `num_threads` - 1 std::threads (num_threads <= 0: hardware concurrency, capped at
// kMaxListingThreads). If a thread cannot be started, the ones that were started do the work.
inline void run_parallel(int64_t n, ThreadPool* pool, int num_threads,
                         const std::function<void(int64_t)>& fn) {
  if (n <= 0) return;
  if (pool != nullptr) {
    // The caller's slot index is irrelevant here: listing keeps no per-thread state in the pool.
    pool->parallel_for(
        n, [&](int64_t i, int) { fn(i); }, pool->num_threads());
    return;
  }
  if (num_threads <= 0) {
    num_threads =
        std::clamp(static_cast<int>(std::thread::hardware_concurrency()), 1, kMaxListingThreads);
  }
  num_threads = static_cast<int>(std::min<int64_t>(num_threads, n));

  std::atomic<int64_t> next{0};
  std::atomic<bool> failed{false};
  std::mutex error_mu;
  std::exception_ptr error;
  auto work = [&] {
    for (int64_t i = next.fetch_add(1); i < n && !failed.load(std::memory_order_relaxed);
         i = next.fetch_add(1)) {
      try {
        fn(i);
      } catch (...) {
        std::lock_guard<std::mutex> lock(error_mu);
        if (!error) error = std::current_exception();
        failed = true;
      }
    }
  };
  std::vector<std::thread> threads;
  threads.reserve(static_cast<size_t>(num_threads - 1));
  for (int t = 1; t < num_threads; ++t) {
    try {
      threads.emplace_back(work);
    } catch (const std::system_error&) {
      break;  // out of threads: the caller and the started threads share the work
    }
  }
  work();
  for (std::thread& t : threads) t.join();
  if (error) std::rethrow_exception(error);
}

}  // namespace sluice::io_detail
