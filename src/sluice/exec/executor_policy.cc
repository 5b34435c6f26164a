#include "sluice/exec/executor_policy.h"

#include "sluice/exec/executor.h"
#include "sluice/graph/graph.h"

namespace sluice {

int default_cpu_workers(int num_threads, int cpu_queue_depth) {
  if (num_threads >= kThreeCpuWorkersFromThreads &&
      cpu_queue_depth >= kThreeCpuWorkersFromQueueDepth) {
    return 3;
  }
  return num_threads >= kTwoCpuWorkersFromThreads ? 2 : 1;
}

StagePlan StagePlan::make(const CompiledGraph& graph, const ExecutorParams& params) {
  StagePlan p;
  p.num_ops = static_cast<int>(graph.ops.size());
  p.first_gpu_op = graph.first_gpu_stage_op();
  p.mixed_end = p.first_gpu_op;
  int k = p.first_gpu_op;  // stages are in order: the mixed ops, then the GPU ops
  while (k < p.num_ops && graph.ops[k].device == OpDevice::kMixed) ++k;
  if (params.pipelined && k < p.num_ops) p.mixed_end = k;

  p.serial = !params.pipelined;
  p.synchronous = !params.async;
  if (p.serial) {
    p.cpu_workers = 1;
  } else if (params.cpu_workers > 0) {
    p.cpu_workers = params.cpu_workers;
  } else {
    p.cpu_workers = default_cpu_workers(params.num_threads, params.cpu_queue_depth);
  }

  p.output_depth = p.has_gpu_stage() ? params.gpu_queue_depth : params.cpu_queue_depth;
  p.cpu_in_flight = params.cpu_queue_depth + (p.has_mixed_thread() ? 1 : 0) + (p.cpu_workers - 1);
  p.cpu_only_in_flight = params.cpu_queue_depth + (p.cpu_workers > 1 ? p.cpu_workers : 0);
  p.cpu_slots = p.has_gpu_stage() ? p.cpu_in_flight : p.cpu_in_flight + 1;
  p.gpu_slots = p.has_gpu_stage() ? params.gpu_queue_depth + 1 : 0;
  return p;
}

}  // namespace sluice
