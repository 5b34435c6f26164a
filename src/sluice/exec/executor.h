#pragma once
// The pipelined executor: runs a compiled graph in three stages (cpu -> mixed -> gpu) on stage
// threads, with bounded prefetch queues and a shared worker pool. The CPU stage has a thread;
// the mixed and GPU stages share one, or, when the graph has both and the executor is
// pipelined, have one each (Note [Mixed thread] in executor.cc).
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
// Thread safety: the consumer API may be called from one thread at a time.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
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
};

// One finished iteration.
struct Outputs {
  std::vector<TensorList> tensors;
  BatchInfo batch;                      // without the fed data
  std::shared_ptr<cuda::Event> ready;   // recorded after the GPU stage; null without one
  cuda::StreamHandle stream = nullptr;  // the pipeline stream the outputs were written on
  std::exception_ptr error;
};

class ExecutorStats;

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
  struct Slot {
    std::vector<std::vector<TensorList>> outputs;  // [op][output] (this stage's ops only)
    BatchInfo batch;
    std::exception_ptr error;
    int64_t seq = 0;  // GPU slots: iterations the device stages started before this one
  };
  // An iteration between the mixed and the GPU thread.
  struct Handoff {
    int cpu = 0, gpu = 0;  // slot indices
  };
  enum class Part { kAll, kMixed, kGpu };  // the device ops a device stage thread runs

  void run_stage(int first, int last, Slot& cpu, Slot* gpu, int caller_slot);
  // The tensor `output` of operator `op` in this iteration's slots.
  TensorList& tensor(Slot& cpu, Slot* gpu, int op, int output);
  std::vector<TensorList*> io_outputs_of(int op, Slot& cpu, Slot* gpu);
  void cpu_loop(int worker);
  void size_batch(BatchInfo& b, int64_t epoch);
  // Note [Two CPU iterations]: wait until `turn` has reached `iteration`, or advance it.
  void wait_turn(const int64_t& turn, int64_t iteration);
  void pass_turn(int64_t& turn, int64_t iteration);
  void device_loop(Part part);
  bool can_start_cpu_locked() const;
  bool can_start_device_locked(Part part) const;
  std::shared_ptr<Outputs> make_outputs(Slot& cpu, Slot* gpu);
  void remap_before(int op, Slot& cpu, Slot* gpu, const std::vector<int>& source);
  void stop_threads();
  void start_threads();

  CompiledGraph graph_;
  ExecutorParams params_;
  StagePlan plan_;
  int first_gpu_op_ = 0;  // plan_.first_gpu_op
  int mixed_end_ = 0;     // plan_.mixed_end
  std::unique_ptr<ThreadPool> pool_;
  cuda::PooledStream stream_;
  // Mixed thread only: its stream, the event that ends each GPU slot's mixed work, and per
  // buffer set of the mixed intermediates the event after the GPU ops that read it.
  cuda::PooledStream mixed_stream_;
  std::vector<cuda::Event> mixed_done_, consumed_;
  // Note [Pinned transfers]: per CPU slot, recorded after the device stage that reads the slot
  // has queued its copies; empty when no CPU tensor is pinned.
  std::vector<cuda::Event> cpu_slot_read_;
  std::vector<std::unique_ptr<Operator>> ops_;
  std::vector<OpContext> contexts_;
  std::unique_ptr<ExecutorStats> stats_;
  std::vector<Slot> cpu_slots_, gpu_slots_;
  // GPU-stage tensors that are not pipeline outputs live only within one iteration of the GPU
  // stage, which runs iterations one after another on one stream: one buffer serves them all
  // (the one in gpu_slots_[0]), instead of one per prefetched iteration. With a mixed thread,
  // the mixed ops' ones alternate between two (gpu_slots_[seq % 2]): the mixed thread writes
  // one while the GPU thread reads the other.
  std::vector<std::vector<char>> shared_gpu_;  // [op - first_gpu_op_][output]

  // Everything below is guarded by mu_.
  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  bool failed_ = false;    // a stage failed: start nothing new
  bool broken_ = false;    // the consumer received the error: reset() needed
  int64_t scheduled_ = 0;  // iterations asked for since the last reset
  int64_t cpu_next_ = 0;   // next iteration the CPU stage starts
  int64_t produced_ = 0;   // iterations turned into outputs
  int cpu_busy_ = 0, mixed_busy_ = 0, gpu_busy_ = 0;
  int cpu_inflight_ = 0;             // started by the CPU stage, not yet done by the GPU stage
  int device_inflight_ = 0;          // started by the device stages, not yet published
  int64_t device_started_ = 0;       // iterations the device stages started since the last reset
  std::deque<int> cpu_ready_;        // CPU slots waiting for the device stages
  std::deque<Handoff> mixed_ready_;  // iterations the mixed thread handed to the GPU thread
  std::deque<std::shared_ptr<Outputs>> outputs_;
  std::deque<std::shared_ptr<Outputs>> held_;
  int64_t epoch_ = 0;           // resets so far: the epoch of sources without readers
  int64_t iteration_base_ = 0;  // iterations before the last reset
  std::map<std::string, std::deque<TensorList>, std::less<>> fed_;

  // Note [Two CPU iterations]: per CPU operator, the iterations (since the last reset) it has
  // run; and how many iterations the CPU stage sized and handed on. Guarded by turn_mu_.
  std::mutex turn_mu_;
  std::condition_variable turn_cv_;
  std::vector<int64_t> op_turn_;
  int64_t sized_turn_ = 0, handoff_turn_ = 0;
  int64_t samples_since_reset_ = 0;  // the sizing turn's
  std::vector<std::thread> cpu_threads_;
  std::thread mixed_thread_, gpu_thread_;
};

}  // namespace sluice
