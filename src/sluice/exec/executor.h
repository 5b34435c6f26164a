#pragma once
// The pipelined executor: runs a compiled graph in three stages (cpu -> mixed -> gpu) on stage
// threads, with bounded prefetch queues and a shared worker pool. The CPU stage has a thread;
// the mixed and GPU stages share one, or, when the graph has both and the executor is
// pipelined, have one each (Note [Mixed thread] in executor_device_stage.cc).
//
//   schedule_run()   asks for one more iteration
//   share_outputs()  returns the oldest finished iteration (blocks), raising its error if any
//   release_outputs() gives the oldest shared iteration back
//
// The CPU stage of iteration i+1 overlaps the mixed/GPU stage of iteration i (exec_pipelined),
// and the mixed stage of i+1 overlaps the GPU stage of i. A pipelined CPU stage also works on
// two iterations at once, one operator apart (Note [Two CPU iterations] in executor_cpu_stage.cc).
// Outputs share storage with the executor's buffers; buffers still referenced by the consumer
// are never overwritten (TensorList copy-on-write), so outputs stay valid as long as they are
// held. After an error the executor stops starting iterations; the consumer gets the finished
// ones, then the error; reset() makes it usable again.
//
// The Executor wires its parts together (exec/executor_*.{h,cc}):
//   StagePlan      executor_policy        which operators each stage runs, how many iterations
//                                         each stage may hold; the tuned constants
//   StageQueues    executor_queues        the schedule: iterations asked for, between stages,
//                                         published, held; the one mutex stages and consumer share
//   SlotRings      executor_slots         the buffers of the iterations in flight
//   StageRunner    executor_stage_runner  runs a range of operators on one iteration
//   StageParts     executor_stage         what a stage's workers work with (the parts above)
//   CpuStage       executor_cpu_stage     the CPU workers and their turns
//   DeviceStage    executor_device_stage  the mixed and GPU threads and their events
//   ExecutorStats  executor_stats         what the statistics report; the stages notify it
//
// Thread safety: the consumer API may be called from one thread at a time.

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sluice/exec/executor_policy.h"
#include "sluice/exec/operator.h"
#include "sluice/graph/graph.h"

namespace sluice {

struct ExecutorParams {
  int max_batch_size = 1;
  int num_threads = 1;
  int device_id = -1;  // -1: CPU only
  int64_t seed = 0;
  bool pipelined = true;
  bool async = true;
  int cpu_queue_depth = 2;
  int gpu_queue_depth = 2;
  size_t bytes_per_sample = 0;
  bool set_affinity = false;
  int stream_priority = 0;
  bool enable_memory_stats = false;
  // Workers of a pipelined CPU stage (Note [Two CPU iterations]), at most
  // ThreadPool::kMaxCpuWorkers; 0: Executor::default_cpu_workers.
  int cpu_workers = 0;
  // Where sources without readers start (a restored checkpoint): the epoch and the id of the
  // first sample; after a reset(), the next epoch from sample 0.
  int64_t first_epoch = 0;
  int64_t first_sample = 0;
};

// One finished iteration.
struct Outputs {
  std::vector<TensorList> tensors;
  BatchInfo batch;                      // without the fed data
  std::shared_ptr<cuda::Event> ready;   // recorded after the GPU stage; null without one
  cuda::StreamHandle stream = nullptr;  // the pipeline stream the outputs were written on
  std::exception_ptr error;
};

class CpuStage;
class DeviceStage;
class ExecutorStats;
class SlotRings;
class StageQueues;
class StageRunner;

class Executor {
 public:
  Executor(CompiledGraph graph, ExecutorParams params);
  ~Executor();
  Executor(const Executor&) = delete;
  Executor& operator=(const Executor&) = delete;

  const CompiledGraph& graph() const { return graph_; }
  const ExecutorParams& params() const { return params_; }

  void schedule_run();
  // Waits up to `timeout` for an output (or error) to be available; true when share_outputs()
  // would not block. Lets the Python binding check for signals while waiting.
  bool wait_for_outputs(std::chrono::milliseconds timeout);
  std::shared_ptr<Outputs> share_outputs();
  void release_outputs();
  // Drops queued and held outputs, waits for running stages, clears errors; sources restart
  // (external sources drop unconsumed data; readers continue with their next batch).
  void reset();

  // Queues one batch of data for the external_source operator `name`.
  void feed(const std::string& name, TensorList data);
  bool has_operator(std::string_view name) const;

  nlohmann::json reader_meta(const std::string& name) const;  // null when not a reader
  std::vector<std::string> reader_names() const;
  nlohmann::json statistics() const;
  // Stage busy times, consumer waits and queue occupancy since the first schedule_run().
  nlohmann::json pipeline_statistics() const;

  cuda::StreamHandle stream() const { return stream_.get(); }
  bool has_gpu_stage() const { return plan_.has_gpu_stage(); }

  // Workers of a pipelined CPU stage unless ExecutorParams::cpu_workers says otherwise
  // (executor_policy.h).
  static int default_cpu_workers(int num_threads, int cpu_queue_depth) {
    return ::sluice::default_cpu_workers(num_threads, cpu_queue_depth);
  }

 private:
  void make_operators();
  void start_stages();
  void stop_stages();

  // Set up in the constructor, each part holding references to parts above it; the stages'
  // threads run between start_stages() and stop_stages(), which reset() and the destructor call
  // before touching anything else. Locks live in the parts: StageQueues (the schedule),
  // CpuStage's turns, ExecutorStats and the ThreadPool.
  CompiledGraph graph_;
  ExecutorParams params_;
  StagePlan plan_;
  std::unique_ptr<ThreadPool> pool_;
  cuda::PooledStream stream_;
  cuda::PooledStream mixed_stream_;  // the mixed thread's; empty without one
  std::vector<OpContext> contexts_;  // [op]
  std::vector<std::unique_ptr<Operator>> ops_;
  std::unique_ptr<ExecutorStats> stats_;
  std::unique_ptr<StageRunner> runner_;
  std::unique_ptr<SlotRings> slots_;
  std::unique_ptr<StageQueues> queues_;
  std::unique_ptr<CpuStage> cpu_stage_;
  std::unique_ptr<DeviceStage> device_stage_;  // null without a GPU stage
};

}  // namespace sluice
