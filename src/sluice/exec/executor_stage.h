#pragma once
// StageParts: what the workers of a stage work with - the executor's parts they share. The
// Executor owns them all and outlives every stage thread.

#include "sluice/exec/executor.h"
#include "sluice/exec/executor_policy.h"
#include "sluice/exec/executor_queues.h"
#include "sluice/exec/executor_slots.h"
#include "sluice/exec/executor_stage_runner.h"
#include "sluice/exec/executor_stats.h"
#include "sluice/parallel/thread_pool.h"

namespace sluice {

struct StageParts {
  const CompiledGraph& graph;
  const ExecutorParams& params;
  const StagePlan& plan;
  ThreadPool& pool;
  StageRunner& runner;  // runs operators on an iteration's slots
  SlotRings& slots;     // the iterations' buffers
  StageQueues& queues;  // where iterations are taken and handed on
  ExecutorStats& stats;
};

}  // namespace sluice
