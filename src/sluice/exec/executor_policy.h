#pragma once
// How the executor runs a graph, worked out once from the graph and ExecutorParams (StagePlan):
// which operators each stage thread runs, how many workers the CPU stage has, and how many
// iterations each stage may hold. The tuned constants of the executor are here too.

namespace sluice {

struct CompiledGraph;
struct ExecutorParams;

// Workers of a pipelined CPU stage (Note [Two CPU iterations] in executor_cpu_stage.cc), unless
// ExecutorParams::cpu_workers says otherwise. With few threads an operator's tail idles little,
// and a second iteration in flight costs a slot of memory and cache; a third pays on a large
// pool when the consumer asks for 3 iterations ahead (bench/RESULTS.md#cpu-two-iterations,
// #cpu-three-iterations).
//
// Pool threads from which a second CPU worker keeps the pool busier than it costs.
inline constexpr int kTwoCpuWorkersFromThreads = 8;
// Pool threads from which a third worker pays, given the iterations ahead below.
inline constexpr int kThreeCpuWorkersFromThreads = 12;
// A third worker can only start while the consumer asks for this many iterations ahead.
inline constexpr int kThreeCpuWorkersFromQueueDepth = 3;

int default_cpu_workers(int num_threads, int cpu_queue_depth);

// The mixed operators' intermediates alternate between this many buffer sets (Note [Mixed
// thread] in executor_device_stage.cc): the mixed thread writes one while the GPU thread reads
// the other, so at most this many iterations are past the CPU stage and not yet published.
inline constexpr int kMixedBufferSets = 2;

struct StagePlan {
  // Operators [0, first_gpu_op) run on the CPU stage, [first_gpu_op, mixed_end) on the mixed
  // thread and [mixed_end, num_ops) on the GPU thread. The mixed thread exists when a pipelined
  // graph has both mixed and GPU operators; without it mixed_end == first_gpu_op.
  int num_ops = 0;
  int first_gpu_op = 0;
  int mixed_end = 0;

  bool serial = false;       // not pipelined: one iteration in the executor at a time
  bool synchronous = false;  // not async: schedule_run() waits for its iteration
  int cpu_workers = 1;       // threads of the CPU stage, each running whole iterations

  // Outputs published and held by the consumer at most: the last stage's prefetch queue depth.
  int output_depth = 1;
  // Graphs with a GPU stage: iterations the CPU stage may have started and the device stages
  // not yet published. The last device stage frees a CPU slot: with a mixed thread one more
  // iteration is past the CPU stage, and each CPU worker after the first has one more in it, so
  // the CPU stage gets a slot more for each.
  int cpu_in_flight = 1;
  // CPU-only graphs: iterations published, held and running, below which one more may start.
  // With several CPU workers, up to one per worker more than the queue's depth (the whole
  // ring), so that all work while the consumer holds its outputs; a finished iteration waits for
  // room before it is published.
  int cpu_only_in_flight = 1;
  // Ring sizes: one CPU slot per iteration the CPU stage may hold (CPU-only graphs: one more, for
  // an iteration finishing while the queue is full); one GPU slot per published output and one
  // for the iteration the device stages write.
  int cpu_slots = 1;
  int gpu_slots = 0;

  bool has_gpu_stage() const { return first_gpu_op < num_ops; }
  bool has_mixed_thread() const { return mixed_end > first_gpu_op; }

  // `params` as the executor keeps them (queue depths 1 when not pipelined).
  static StagePlan make(const CompiledGraph& graph, const ExecutorParams& params);
};

}  // namespace sluice
