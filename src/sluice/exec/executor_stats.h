#pragma once
// ExecutorStats: what the executor's statistics report, kept as an observer that the stages
// notify: each operator's runs, time and output memory (Executor::statistics()), and where the
// pipeline's time goes - the stages' busy times and the consumer's waits - for the bottleneck
// report (Executor::pipeline_statistics()).
//
// Thread safety: every method may be called from any thread. Operator times are atomic counters;
// the rest is under the statistics' own mutex, which StageQueues takes while holding its own
// (never the reverse).

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <vector>

#include <nlohmann/json.hpp>

#include "sluice/core/mutex.h"

namespace sluice {

class Operator;
class TensorList;
struct CompiledGraph;

class ExecutorStats {
 public:
  ExecutorStats(int num_ops, bool memory_stats);
  ExecutorStats(const ExecutorStats&) = delete;
  ExecutorStats& operator=(const ExecutorStats&) = delete;

  // Whether on_operator_outputs() is wanted (enable_memory_stats).
  bool memory_stats() const { return memory_stats_; }

  // Operator `op` ran once, for `ns`; `work_ns`: its per-sample work, summed over threads.
  void on_operator_run(int op, uint64_t ns, uint64_t work_ns);
  // The outputs operator `op` just wrote (memory statistics).
  void on_operator_outputs(int op, const std::vector<TensorList*>& outputs) SLUICE_EXCLUDES(mu_);
  // The consumer asked for an iteration; the first one starts the wall clock.
  void on_schedule() SLUICE_EXCLUDES(mu_);
  void on_consumer_wait(uint64_t ns) SLUICE_EXCLUDES(mu_);
  // The CPU stage started running an iteration while none ran, or finished its last one.
  void on_cpu_stage_busy() SLUICE_EXCLUDES(mu_);
  void on_cpu_stage_idle() SLUICE_EXCLUDES(mu_);
  // A device stage ran an iteration's operators for `ns`.
  void on_mixed_stage_work(uint64_t ns) SLUICE_EXCLUDES(mu_);
  void on_gpu_stage_work(uint64_t ns) SLUICE_EXCLUDES(mu_);
  // reset(): the iterations in flight were dropped, and with them the CPU stage's open busy time.
  void on_reset() SLUICE_EXCLUDES(mu_);

  // {operator name: {type, device, runs, total_time_ms, mean_time_ms, work_time_ms, memory...}}
  nlohmann::json operators(const CompiledGraph& graph,
                           const std::vector<std::unique_ptr<Operator>>& ops) const
      SLUICE_EXCLUDES(mu_);
  // {wall_time_s, cpu_stage_busy_s, mixed_stage_busy_s, gpu_stage_busy_s, consumer_wait_s}
  nlohmann::json stages() const SLUICE_EXCLUDES(mu_);

 private:
  struct OpTimes {
    std::atomic<uint64_t> runs{0};
    std::atomic<uint64_t> total_ns{0};
    std::atomic<uint64_t> work_ns{0};  // inside for_each_sample, summed over threads
  };
  struct OpMemory {  // per output
    std::vector<size_t> real, reserved, max_real, max_reserved;
  };

  const bool memory_stats_;
  std::vector<OpTimes> times_;  // [op], sized once

  mutable Mutex mu_;
  std::vector<OpMemory> memory_ SLUICE_GUARDED_BY(mu_);  // [op]
  // Where the time goes: a stage's time counts while it had work.
  uint64_t cpu_stage_ns_ SLUICE_GUARDED_BY(mu_) = 0;
  uint64_t mixed_stage_ns_ SLUICE_GUARDED_BY(mu_) = 0;
  uint64_t gpu_stage_ns_ SLUICE_GUARDED_BY(mu_) = 0;
  uint64_t wait_ns_ SLUICE_GUARDED_BY(mu_) = 0;  // the consumer waiting for outputs
  std::chrono::steady_clock::time_point first_schedule_ SLUICE_GUARDED_BY(mu_){};
  bool cpu_busy_ SLUICE_GUARDED_BY(mu_) = false;
  std::chrono::steady_clock::time_point cpu_busy_since_ SLUICE_GUARDED_BY(mu_){};
};

// Nanoseconds since `start`.
uint64_t elapsed_ns(std::chrono::steady_clock::time_point start);

}  // namespace sluice
