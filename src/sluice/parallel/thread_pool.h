#pragma once
// Fixed-size pool of worker threads owned by one pipeline.
//
// Work items receive the index of the thread that runs them, so per-thread state (a libjpeg
// decompressor, nvJPEG states, staging buffers) is an array lookup: workers have indices
// [0, num_threads()); callers that run work inline (parallel_for with few items) use the extra
// indices [num_threads(), num_slots()), one per pipeline stage thread.
//
// Thread safety: parallel_for and submit may be called from several threads at once (the CPU
// and GPU stages share the pool). Everything a task writes before it returns is visible to the
// caller after parallel_for / TaskGroup::wait returns (mutex hand-off).

#include <atomic>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "sluice/core/mutex.h"

namespace sluice {

class ThreadPool {
 public:
  // Per-thread state for stage threads: the CPU stage's workers (at most kMaxCpuWorkers), the
  // mixed thread and the GPU thread.
  static constexpr int kMaxCpuWorkers = 4;
  static constexpr int kStageSlots = kMaxCpuWorkers + 2;

  // `affinity`: CPU ids for workers 0, 1, ... (empty: no pinning). `device` >= 0 makes that CUDA
  // device current on every worker.
  ThreadPool(int num_threads, std::vector<int> affinity = {}, int device = -1);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int num_threads() const { return static_cast<int>(workers_.size()); }
  int num_slots() const { return num_threads() + kStageSlots; }

  // A set of tasks that can be waited for. The first exception thrown by a task is rethrown
  // by wait() after every task of the group has finished.
  class TaskGroup {
   public:
    explicit TaskGroup(ThreadPool& pool) : pool_(pool) {}
    ~TaskGroup();
    void submit(std::function<void(int thread)> fn) SLUICE_EXCLUDES(mu_);
    void wait() SLUICE_EXCLUDES(mu_);

   private:
    friend class ThreadPool;
    void finish(std::exception_ptr e) SLUICE_EXCLUDES(mu_);
    ThreadPool& pool_;
    Mutex mu_;
    CondVar cv_;
    int outstanding_ SLUICE_GUARDED_BY(mu_) = 0;
    std::exception_ptr error_ SLUICE_GUARDED_BY(mu_);
  };

  // Runs fn(i, thread) for i in [0, n) and waits. Runs inline on the caller (thread index
  // `caller_slot`) when n <= inline_below or the pool has no workers.
  void parallel_for(int64_t n, const std::function<void(int64_t i, int thread)>& fn,
                    int caller_slot, int64_t inline_below = 1);

  // Parses SLUICE_AFFINITY_MASK ("3,5,6,10"): the CPU ids for workers in order.
  static std::vector<int> affinity_from_env();
  // CPU ids for `num_threads` workers: SLUICE_AFFINITY_MASK first (as DALI_AFFINITY_MASK), then
  // CPUs close to `device` (or, without one, the CPUs this process may run on).
  static std::vector<int> default_affinity(int num_threads, int device);
  // The CPUs this process may run on (sched_getaffinity), in order.
  static std::vector<int> process_cpus();
  // Share `rank` of `size` of `cpus`: contiguous runs whose sizes differ by at most one.
  static std::vector<int> share_of(const std::vector<int>& cpus, int rank, int size);
  // Under torchrun (LOCAL_RANK of LOCAL_WORLD_SIZE > 1 processes on this host), this rank's
  // share of process_cpus(), so that the ranks divide the host's cores instead of each taking
  // all of them. Empty when not under such a launcher, with SLUICE_SHARE_CORES_BY_RANK=0, or when
  // the launcher already bound the process to fewer CPUs than the host has online.
  // Of that share, the pipeline's threads take pipeline_part(): the rank's training loop (its
  // Python thread, DDP's and NCCL's) needs cores of its own, and without them ResNet-18 on two
  // H100s lost a fifth of its speed (bench/RESULTS.md#two-gpus).
  static std::vector<int> rank_share_from_env();
  // All but one in kCoresPerTrainingCore of `share` (16 cores: 14), all of a share below that.
  static constexpr int kCoresPerTrainingCore = 8;
  static std::vector<int> pipeline_part(std::vector<int> share);
  // Confines the calling thread to the CPUs the workers are pinned to (nothing when they are
  // not): a stage thread runs work inline too, and on a core left to the training loop it would
  // take that core from it (Note [Stage threads stay on the pipeline's cores], executor.cc).
  void keep_this_thread_on_the_workers_cpus() const;
  // Names the calling thread (at most 15 characters) for top -H, py-spy and debuggers.
  static void name_this_thread(const std::string& name);

 private:
  struct Task {
    std::function<void(int)> fn;
    TaskGroup* group;
  };
  void enqueue(Task t) SLUICE_EXCLUDES(mu_);
  void worker_loop(int index, int device) SLUICE_EXCLUDES(mu_);

  Mutex mu_;
  CondVar cv_;
  std::deque<Task> queue_ SLUICE_GUARDED_BY(mu_);
  bool stop_ SLUICE_GUARDED_BY(mu_) = false;
  std::vector<std::thread> workers_;  // set in the constructor, joined in the destructor
  std::vector<int> pinned_;           // the CPUs workers were pinned to, set in the constructor
};

}  // namespace sluice
