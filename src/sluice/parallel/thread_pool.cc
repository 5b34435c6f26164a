#include "sluice/parallel/thread_pool.h"

#include <pthread.h>
#include <sched.h>
#include <unistd.h>

#include <cstdlib>
#include <set>
#include <sstream>
#include <string>

#include "sluice/core/error.h"
#include "sluice/cuda/cuda_api.h"

namespace sluice {

ThreadPool::ThreadPool(int num_threads, std::vector<int> affinity, int device) {
  SLUICE_CHECK(num_threads >= 1, InvalidArgument, "num_threads must be >= 1, got ", num_threads);
  workers_.reserve(num_threads);
  for (int i = 0; i < num_threads; ++i) {
    workers_.emplace_back([this, i, device] { worker_loop(i, device); });
    // Named and pinned from here, so that both hold when the constructor returns (a worker that
    // has not run yet would otherwise show neither to `top -H` or a launcher's checks).
    pthread_t handle = workers_.back().native_handle();
    pthread_setname_np(handle, ("sluice-w" + std::to_string(i)).substr(0, 15).c_str());
    if (i < static_cast<int>(affinity.size()) && affinity[i] >= 0) {
      cpu_set_t set;
      CPU_ZERO(&set);
      CPU_SET(affinity[i], &set);
      pthread_setaffinity_np(handle, sizeof(set), &set);  // best effort
      pinned_.push_back(affinity[i]);
    }
  }
}

void ThreadPool::keep_this_thread_on_the_workers_cpus() const {
  if (pinned_.empty()) return;
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int c : pinned_) CPU_SET(c, &set);
  pthread_setaffinity_np(pthread_self(), sizeof(set), &set);  // best effort
}

ThreadPool::~ThreadPool() {
  {
    MutexLock lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  for (auto& t : workers_) t.join();
}

void ThreadPool::name_this_thread(const std::string& name) {
  pthread_setname_np(pthread_self(), name.substr(0, 15).c_str());  // best effort
}

void ThreadPool::worker_loop(int index, int device) {
  if (device >= 0) {
    try {
      cuda::set_device(device);
    } catch (...) {
      // Tasks that need the device report the failure themselves.
    }
  }
  for (;;) {
    Task task;
    {
      MutexLock lock(mu_);
      while (!stop_ && queue_.empty()) cv_.wait(mu_);
      if (queue_.empty()) return;  // stopping and drained
      task = std::move(queue_.front());
      queue_.pop_front();
    }
    std::exception_ptr err;
    try {
      task.fn(index);
    } catch (...) {
      err = std::current_exception();
    }
    task.group->finish(err);
  }
}

void ThreadPool::enqueue(Task t) {
  {
    MutexLock lock(mu_);
    queue_.push_back(std::move(t));
  }
  cv_.notify_one();
}

ThreadPool::TaskGroup::~TaskGroup() {
  // Never leave tasks running that reference this group.
  MutexLock lock(mu_);
  while (outstanding_ != 0) cv_.wait(mu_);
}

void ThreadPool::TaskGroup::submit(std::function<void(int)> fn) {
  {
    MutexLock lock(mu_);
    ++outstanding_;
  }
  pool_.enqueue({std::move(fn), this});
}

void ThreadPool::TaskGroup::finish(std::exception_ptr e) {
  MutexLock lock(mu_);
  if (e && !error_) error_ = e;
  // Notified under the lock: the waiter may destroy the group as soon as it sees zero.
  if (--outstanding_ == 0) cv_.notify_all();
}

void ThreadPool::TaskGroup::wait() {
  MutexLock lock(mu_);
  while (outstanding_ != 0) cv_.wait(mu_);
  if (error_) {
    auto e = error_;
    error_ = nullptr;
    std::rethrow_exception(e);
  }
}

void ThreadPool::parallel_for(int64_t n, const std::function<void(int64_t, int)>& fn,
                              int caller_slot, int64_t inline_below) {
  if (n <= 0) return;
  if (n <= inline_below || workers_.empty()) {
    for (int64_t i = 0; i < n; ++i) fn(i, caller_slot);
    return;
  }
  // One task per worker; each pulls indices from a shared counter (cheap, balanced). After the
  // first failure the remaining indices are skipped.
  std::atomic<int64_t> next{0};
  std::atomic<bool> failed{false};
  TaskGroup group(*this);
  int tasks = static_cast<int>(std::min<int64_t>(n, num_threads()));
  for (int t = 0; t < tasks; ++t) {
    group.submit([&](int thread) {
      for (int64_t i = next.fetch_add(1); i < n && !failed.load(std::memory_order_relaxed);
           i = next.fetch_add(1)) {
        try {
          fn(i, thread);
        } catch (...) {
          failed = true;
          throw;
        }
      }
    });
  }
  group.wait();
}

std::vector<int> ThreadPool::affinity_from_env() {
  std::vector<int> cpus;
  const char* v = std::getenv("SLUICE_AFFINITY_MASK");
  if (!v || !*v) return cpus;
  std::stringstream ss(v);
  std::string item;
  while (std::getline(ss, item, ',')) {
    char* end = nullptr;
    long c = std::strtol(item.c_str(), &end, 10);
    SLUICE_CHECK(!item.empty() && end && *end == '\0' && c >= 0, InvalidArgument,
                 "SLUICE_AFFINITY_MASK='", v, "' must be a comma-separated list of CPU ids");
    cpus.push_back(static_cast<int>(c));
  }
  return cpus;
}

std::vector<int> ThreadPool::process_cpus() {
  std::vector<int> cpus;
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) == 0) {
    for (int c = 0; c < CPU_SETSIZE; ++c) {
      if (CPU_ISSET(c, &set)) cpus.push_back(c);
    }
  }
  return cpus;
}

std::vector<int> ThreadPool::share_of(const std::vector<int>& cpus, int rank, int size) {
  if (size < 1 || rank < 0 || rank >= size) return {};
  const size_t n = cpus.size();
  const size_t lo = n * rank / size, hi = n * (rank + 1) / size;
  if (lo == hi) return {cpus.empty() ? 0 : cpus[rank % n]};  // more ranks than cores
  return std::vector<int>(cpus.begin() + lo, cpus.begin() + hi);
}

namespace {

// A non-negative integer environment variable, or -1.
int env_int(const char* name) {
  const char* v = std::getenv(name);
  if (!v || !*v) return -1;
  char* end = nullptr;
  long x = std::strtol(v, &end, 10);
  return *end == '\0' && x >= 0 && x < (1 << 20) ? static_cast<int>(x) : -1;
}

}  // namespace

std::vector<int> ThreadPool::rank_share_from_env() {
  const char* off = std::getenv("SLUICE_SHARE_CORES_BY_RANK");
  if (off && std::string(off) == "0") return {};
  const int rank = env_int("LOCAL_RANK"), size = env_int("LOCAL_WORLD_SIZE");
  if (size < 2 || rank < 0 || rank >= size) return {};
  std::vector<int> cpus = process_cpus();
  // A launcher that bound each rank (torchrun --cpu-bind, numactl, Slurm) divided them already.
  if (cpus.empty() || static_cast<long>(cpus.size()) < sysconf(_SC_NPROCESSORS_ONLN)) return {};
  return pipeline_part(share_of(cpus, rank, size));
}

std::vector<int> ThreadPool::pipeline_part(std::vector<int> share) {
  share.resize(share.size() - share.size() / kCoresPerTrainingCore);
  return share;
}

std::vector<int> ThreadPool::default_affinity(int num_threads, int device) {
  std::vector<int> cpus = affinity_from_env();
  if (static_cast<int>(cpus.size()) >= num_threads) {
    cpus.resize(num_threads);
    return cpus;
  }
  std::vector<int> pool = device >= 0 ? cuda::device_local_cpus(device) : std::vector<int>{};
  if (pool.empty()) pool = process_cpus();
  if (pool.empty()) return cpus;
  std::set<int> used(cpus.begin(), cpus.end());
  std::vector<int> free;
  for (int c : pool) {
    if (!used.count(c)) free.push_back(c);
  }
  if (free.empty()) free = pool;
  for (size_t k = 0; static_cast<int>(cpus.size()) < num_threads; ++k) {
    cpus.push_back(free[k % free.size()]);
  }
  return cpus;
}

}  // namespace sluice
