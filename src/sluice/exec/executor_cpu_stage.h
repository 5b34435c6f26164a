#pragma once
// CpuStage: the CPU stage's workers. Each takes a scheduled iteration from StageQueues, lets the
// sources size its batch, runs the CPU operators on its CPU slot and hands it on; a pipelined
// stage has several workers, each running whole iterations, which take turns at every operator
// (Note [Two CPU iterations] in executor_cpu_stage.cc).

#include <cstdint>
#include <exception>
#include <thread>
#include <vector>

#include "sluice/core/mutex.h"
#include "sluice/exec/executor_stage.h"

namespace sluice {

// A turn that iterations take in order, one at a time: iteration i may take it once iteration
// i-1 has passed it. As a capability, it guards what one iteration at a time may touch.
class SLUICE_CAPABILITY("turn") Turn {
 public:
  Turn() = default;
  Turn(const Turn&) = delete;
  Turn& operator=(const Turn&) = delete;

  // Waits until `iteration` may take the turn, without taking it.
  void await(int64_t iteration) SLUICE_EXCLUDES(mu_);
  void take(int64_t iteration) SLUICE_ACQUIRE() SLUICE_EXCLUDES(mu_) { await(iteration); }
  void pass(int64_t iteration) SLUICE_RELEASE() SLUICE_EXCLUDES(mu_);
  // Iteration 0 takes it next (no iteration may be waiting).
  void restart() SLUICE_EXCLUDES(mu_);

 private:
  Mutex mu_;
  CondVar cv_;
  int64_t next_ SLUICE_GUARDED_BY(mu_) = 0;  // the iteration whose turn it is
};

// Holds a Turn for one iteration for its scope, and passes it on however the scope ends.
class SLUICE_SCOPED_CAPABILITY TurnScope {
 public:
  TurnScope(Turn& turn, int64_t iteration) SLUICE_ACQUIRE(turn)
      : turn_(turn), iteration_(iteration) {
    turn_.take(iteration_);
  }
  ~TurnScope() SLUICE_RELEASE() { turn_.pass(iteration_); }
  TurnScope(const TurnScope&) = delete;
  TurnScope& operator=(const TurnScope&) = delete;

 private:
  Turn& turn_;
  const int64_t iteration_;
};

class CpuStage {
 public:
  explicit CpuStage(const StageParts& parts);
  CpuStage(const CpuStage&) = delete;
  CpuStage& operator=(const CpuStage&) = delete;

  // Starts the workers, every turn at iteration 0 (after construction, or join() and a reset).
  void start();
  // Waits for the workers to return, after StageQueues::stop().
  void join();

 private:
  void worker_loop(int worker);
  // Sizes the batch of the iteration in `slot` and runs the CPU operators on it, each in its
  // turn; returns the iteration's error.
  std::exception_ptr run_iteration(const StageQueues::CpuIteration& it, int slot_index,
                                   int caller_slot);
  // The sources' begin_iteration, then the batch's size and samples.
  void size_batch(BatchInfo& b, int64_t epoch) SLUICE_REQUIRES(sizing_turn_);
  // No worker runs: nothing else touches the turns or what they guard.
  void restart_turns() SLUICE_NO_THREAD_SAFETY_ANALYSIS;

  const StageParts parts_;

  // Note [Two CPU iterations]: a turn per CPU operator, one for sizing batches, one for handing
  // iterations on.
  std::vector<Turn> op_turns_;
  Turn sizing_turn_, handoff_turn_;
  int64_t samples_since_reset_ SLUICE_GUARDED_BY(sizing_turn_) = 0;
  bool started_ = false;  // once: the first start begins at ExecutorParams::first_sample
  std::vector<std::thread> workers_;
};

}  // namespace sluice
