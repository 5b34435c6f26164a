#pragma once
// StageQueues: the executor's schedule - the iterations the consumer asked for, those each stage
// runs, those waiting between stages, and the outputs published and held - with the limits
// StagePlan sets on them. The stage workers and the consumer meet here, under one mutex: a
// worker takes an iteration (a slot index) when its stage may start one, and hands it on when
// done; taking and handing on are where a slot passes from one thread to the next.
//
// After a failed iteration no new one starts; the consumer gets the finished ones, then the
// error, and the schedule stays broken until reset.
//
// Thread safety: all methods may be called from any thread; the consumer's from one at a time.

#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "sluice/core/mutex.h"
#include "sluice/exec/executor.h"
#include "sluice/exec/executor_policy.h"

namespace sluice {

class ExecutorStats;

// The device operators a device stage thread runs: all of them (one thread), or the mixed ones
// and the GPU ones on a thread each (Note [Mixed thread]).
enum class DevicePart { kAll, kMixed, kGpu };

// An iteration in the device stages: its slots, and how many the device stages started before.
struct Handoff {
  int cpu = 0, gpu = 0;  // slot indices
  int64_t seq = 0;
};

class StageQueues {
 public:
  StageQueues(const StagePlan& plan, ExecutorStats& stats, int64_t first_epoch = 0);
  StageQueues(const StageQueues&) = delete;
  StageQueues& operator=(const StageQueues&) = delete;

  // The consumer (Executor's API).
  void schedule() SLUICE_EXCLUDES(mu_);
  bool wait_for_outputs(std::chrono::milliseconds timeout) SLUICE_EXCLUDES(mu_);
  std::shared_ptr<Outputs> share() SLUICE_EXCLUDES(mu_);
  void release() SLUICE_EXCLUDES(mu_);
  void feed(const std::string& name, TensorList data) SLUICE_EXCLUDES(mu_);

  // Stopping and restarting. stop() wakes every waiting worker, which then returns; clear()
  // (once they have) drops the iterations in flight and the outputs for a reset; start() lets
  // workers take iterations again.
  void stop() SLUICE_EXCLUDES(mu_);
  void clear() SLUICE_EXCLUDES(mu_);
  void start() SLUICE_EXCLUDES(mu_);

  // The CPU stage. start_cpu() waits for a scheduled iteration that may start and takes it;
  // false when stopping.
  struct CpuIteration {
    int64_t index = 0;      // since the last reset: its CPU slot is index % cpu_slots
    int64_t iteration = 0;  // since the executor was made (BatchInfo::iteration)
    int64_t epoch = 0;      // resets so far: the epoch of sources without readers
    std::map<std::string, TensorList, std::less<>> fed;  // the data fed for it, by operator
  };
  bool start_cpu(CpuIteration& it) SLUICE_EXCLUDES(mu_);
  // Hands the iteration in CPU slot `slot` to the device stages, or publishes `out` (CPU-only
  // graphs) once the consumer has room; iterations arrive in order. False when stopping: the
  // iteration is dropped.
  bool finish_cpu(int slot, bool failed, std::shared_ptr<Outputs> out) SLUICE_EXCLUDES(mu_);

  // The device stages. start_device() waits for an iteration from the previous stage and room
  // for its results, and takes it; false when stopping.
  bool start_device(DevicePart part, Handoff& h) SLUICE_EXCLUDES(mu_);
  void finish_mixed(const Handoff& h) SLUICE_EXCLUDES(mu_);         // to the GPU thread
  void publish(std::shared_ptr<Outputs> out) SLUICE_EXCLUDES(mu_);  // the CPU slot is free

  // Note [Lowering the prefetch depth]: one output fewer ahead and one GPU slot fewer in the
  // ring, for the rest of the executor's life. Waits for a slot nothing uses and gives its index
  // (its buffers are the caller's to free). False at depth 1 already, or when stopping.
  bool retire_gpu_slot(int& slot) SLUICE_EXCLUDES(mu_);
  // The outputs the device stages may have ahead: prefetch_queue_depth, less what was lowered.
  int output_depth() const SLUICE_EXCLUDES(mu_);

 private:
  bool can_start_cpu() const SLUICE_REQUIRES(mu_);
  bool can_start_device(DevicePart part) const SLUICE_REQUIRES(mu_);
  bool output_ready() const SLUICE_REQUIRES(mu_) { return stop_ || broken_ || !outputs_.empty(); }
  // Outputs waiting for the consumer or held by it.
  int published() const SLUICE_REQUIRES(mu_) {
    return static_cast<int>(outputs_.size() + held_.size());
  }

  const StagePlan& plan_;
  ExecutorStats& stats_;

  mutable Mutex mu_;
  CondVar cv_;  // any change below
  bool stop_ SLUICE_GUARDED_BY(mu_) = false;
  bool failed_ SLUICE_GUARDED_BY(mu_) = false;    // an iteration failed: start nothing new
  bool broken_ SLUICE_GUARDED_BY(mu_) = false;    // the consumer received the error: reset needed
  int64_t scheduled_ SLUICE_GUARDED_BY(mu_) = 0;  // iterations asked for since the last reset
  int64_t cpu_next_ SLUICE_GUARDED_BY(mu_) = 0;   // next iteration the CPU stage starts
  int64_t produced_ SLUICE_GUARDED_BY(mu_) = 0;   // iterations turned into outputs
  int cpu_busy_ SLUICE_GUARDED_BY(mu_) = 0;       // iterations the CPU workers run
  int mixed_busy_ SLUICE_GUARDED_BY(mu_) = 0;
  int gpu_busy_ SLUICE_GUARDED_BY(mu_) = 0;
  // Started by the CPU stage, not yet published by the device stages.
  int cpu_inflight_ SLUICE_GUARDED_BY(mu_) = 0;
  // Started by the device stages, not yet published.
  int device_inflight_ SLUICE_GUARDED_BY(mu_) = 0;
  // Iterations the device stages started since the last reset.
  int64_t device_started_ SLUICE_GUARDED_BY(mu_) = 0;
  std::deque<int> cpu_ready_ SLUICE_GUARDED_BY(mu_);  // CPU slots waiting for the device stages
  // Iterations the mixed thread handed to the GPU thread.
  std::deque<Handoff> mixed_ready_ SLUICE_GUARDED_BY(mu_);
  std::deque<std::shared_ptr<Outputs>> outputs_ SLUICE_GUARDED_BY(mu_);  // for the consumer
  std::deque<std::shared_ptr<Outputs>> held_ SLUICE_GUARDED_BY(mu_);     // by the consumer
  int64_t epoch_ SLUICE_GUARDED_BY(mu_) = 0;                             // resets so far
  int64_t iteration_base_ SLUICE_GUARDED_BY(mu_) = 0;  // iterations before the last reset
  std::map<std::string, std::deque<TensorList>, std::less<>> fed_ SLUICE_GUARDED_BY(mu_);
  // GPU slots: the ring (all of them until the depth is lowered), those free in the order they
  // became free, and those taken in the order taken (published outputs free theirs in order).
  int output_depth_ SLUICE_GUARDED_BY(mu_);
  std::vector<int> gpu_ring_ SLUICE_GUARDED_BY(mu_);
  std::deque<int> gpu_free_ SLUICE_GUARDED_BY(mu_);
  std::deque<int> gpu_taken_ SLUICE_GUARDED_BY(mu_);
};

}  // namespace sluice
