#pragma once
// StageRunner: runs the graph's operators on one iteration - a range of them on the iteration's
// slots, each in a Workspace wired to its inputs and outputs, reporting to ExecutorStats - and
// the sources' begin_iteration that sizes a batch.
//
// Thread safety: run() may be called from several stage threads at once for disjoint ranges of
// operators and distinct iterations; the CPU stage's turns (Note [Two CPU iterations]) keep one
// operator to one iteration at a time.

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "sluice/exec/executor.h"
#include "sluice/exec/executor_slots.h"
#include "sluice/exec/operator.h"

namespace sluice {

class ExecutorStats;

class StageRunner {
 public:
  // `stream`: the pipeline's stream, for remapping CPU outputs (on_error="skip").
  StageRunner(const CompiledGraph& graph, const std::vector<std::unique_ptr<Operator>>& ops,
              const std::vector<OpContext>& contexts, SlotRings& slots, ExecutorStats& stats,
              cuda::StreamHandle stream);
  StageRunner(const StageRunner&) = delete;
  StageRunner& operator=(const StageRunner&) = delete;

  // Runs operators [first, last) on the iteration in slots `cpu` and `gpu` (null in the CPU
  // stage); `caller_slot`: the calling stage thread's per-thread state (ThreadPool::num_slots()).
  // An operator's error is raised with the operator and the iteration named. An operator that
  // runs out of memory runs again each time `make_room` (when given) frees some and says so.
  void run(int first, int last, Slot& cpu, Slot* gpu, int caller_slot,
           const std::function<bool()>& make_room = {});
  // The sources' begin_iteration, in graph order: they size the batch `b`.
  void begin_iteration(BatchInfo& b);

 private:
  // Runs operator `op` once; returns its workers' time.
  uint64_t run_operator(int op, Slot& cpu, Slot* gpu, int caller_slot);
  // "the operator, iteration N", the context of its errors.
  std::string describe(int op, const Slot& cpu) const;
  std::vector<TensorList*> outputs_of(int op, Slot& cpu, Slot* gpu);
  // on_error="skip" in operator `op`: the samples of every tensor before it follow `source`.
  void remap_before(int op, Slot& cpu, Slot* gpu, const std::vector<int>& source);

  const CompiledGraph& graph_;
  const std::vector<std::unique_ptr<Operator>>& ops_;
  const std::vector<OpContext>& contexts_;
  SlotRings& slots_;
  ExecutorStats& stats_;
  const cuda::StreamHandle stream_;
};

}  // namespace sluice
