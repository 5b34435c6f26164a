#include "sluice/exec/executor_cpu_stage.h"

#include <string>

#include "sluice/core/error.h"

namespace sluice {

void Turn::await(int64_t iteration) {
  MutexLock lock(mu_);
  while (next_ < iteration) cv_.wait(mu_);
}

void Turn::pass(int64_t iteration) {
  {
    MutexLock lock(mu_);
    next_ = iteration + 1;
  }
  cv_.notify_all();
}

void Turn::restart() {
  MutexLock lock(mu_);
  next_ = 0;
}

CpuStage::CpuStage(const StageParts& parts) : parts_(parts), op_turns_(parts.plan.first_gpu_op) {}

void CpuStage::restart_turns() {
  for (Turn& t : op_turns_) t.restart();
  sizing_turn_.restart();
  handoff_turn_.restart();
  samples_since_reset_ = started_ ? 0 : parts_.params.first_sample;
  started_ = true;
}

void CpuStage::start() {
  restart_turns();
  for (int w = 0; w < parts_.plan.cpu_workers; ++w)
    workers_.emplace_back([this, w] { worker_loop(w); });
}

void CpuStage::join() {
  for (std::thread& t : workers_) t.join();
  workers_.clear();
}

// Note [Two CPU iterations]
// Within one iteration the CPU operators run one after another, each spread over the pool, and
// each ends on its slowest samples while other threads go idle. A pipelined CPU stage with a
// pool of 8 threads or more therefore has two workers, each running whole iterations: while one
// finishes an operator, the pool's idle threads take the other's tasks (the pool is FIFO, so the
// older iteration's tasks go first). Every operator still runs one iteration at a time and in
// order (op_turns_), so an operator's state is never touched by two iterations at once; sources
// are asked for the next batch's size only after they ran the previous one (sizing_turn_), and
// iterations are handed on in order (handoff_turn_). The older iteration never waits for the
// younger one. Every iteration passes every turn, also after an error, so none waits forever.
// From 12 pool threads and a cpu_queue_depth of 3 there are three workers (a third can only
// start while the consumer has asked for 3 iterations ahead; executor_policy.h).
// SLUICE_CPU_STAGE_WORKERS (1 to ThreadPool::kMaxCpuWorkers) sets another number; each worker
// holds one more batch of memory.
void CpuStage::worker_loop(int worker) {
  ThreadPool::name_this_thread(worker == 0 ? "sluice-cpu" : "sluice-cpu" + std::to_string(worker));
  parts_.pool.keep_this_thread_on_the_workers_cpus();
  if (parts_.slots.has_pinned()) {
    try {
      cuda::set_device(parts_.params.device_id);  // before waiting for cpu_slot_read
    } catch (...) {
    }
  }
  // The first worker uses the pool's first stage slot; the mixed and GPU threads the next two.
  const int caller_slot = parts_.pool.num_threads() + (worker == 0 ? 0 : worker + 2);
  StageQueues::CpuIteration it;
  // 1. Wait for a scheduled iteration and room for its results.
  while (parts_.queues.start_cpu(it)) {
    const int slot_index = static_cast<int>(it.index % parts_.slots.cpu_size());
    Slot& slot = parts_.slots.cpu(slot_index);
    slot.batch = BatchInfo();
    slot.batch.iteration = it.iteration;
    slot.batch.fed = std::move(it.fed);

    // 2. Size the batch (sources), then run the CPU stage, each operator in its turn.
    slot.error = run_iteration(it, slot_index, caller_slot);

    // 3. Hand the iteration to the GPU stage, or publish it when there is room, in order.
    TurnScope handoff(handoff_turn_, it.index);
    auto out = parts_.plan.has_gpu_stage() ? nullptr : parts_.slots.make_outputs(slot, nullptr);
    if (!parts_.queues.finish_cpu(slot_index, slot.error != nullptr, std::move(out))) return;
  }
}

std::exception_ptr CpuStage::run_iteration(const StageQueues::CpuIteration& it, int slot_index,
                                           int caller_slot) {
  Slot& slot = parts_.slots.cpu(slot_index);
  std::exception_ptr error;
  try {  // Note [Pinned transfers]
    if (cuda::Event* read = parts_.slots.cpu_slot_read(slot_index)) read->synchronize();
  } catch (...) {
    error = std::current_exception();
  }
  {
    TurnScope sizing(sizing_turn_, it.index);
    if (!error) {
      try {
        for (int i = 0; i < parts_.plan.first_gpu_op; ++i) {
          if (parts_.graph.ops[i].schema->is_source()) op_turns_[i].await(it.index);
        }
        size_batch(slot.batch, it.epoch);
      } catch (...) {
        error = std::current_exception();
      }
    }
  }
  for (int op = 0; op < parts_.plan.first_gpu_op; ++op) {
    TurnScope turn(op_turns_[op], it.index);
    if (error) continue;  // the operators this iteration did not reach still pass their turn
    try {
      parts_.runner.run(op, op + 1, slot, nullptr, caller_slot);
    } catch (...) {
      error = std::current_exception();
    }
  }
  return error;
}

void CpuStage::size_batch(BatchInfo& b, int64_t epoch) {
  parts_.runner.begin_iteration(b);
  if (!b.sized) {
    b.size = parts_.params.max_batch_size;
    b.sized = true;
  }
  SLUICE_CHECK(b.size >= 1 && b.size <= parts_.params.max_batch_size, InvalidArgument, "iteration ",
               b.iteration, " has ", b.size, " samples; the pipeline's batch_size (maximum) is ",
               parts_.params.max_batch_size);
  if (b.samples.empty()) {
    b.samples.resize(b.size);
    for (int i = 0; i < b.size; ++i) b.samples[i] = {"", epoch, samples_since_reset_ + i};
  }
  samples_since_reset_ += b.size;
}

}  // namespace sluice
