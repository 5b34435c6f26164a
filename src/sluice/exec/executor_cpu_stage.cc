// The executor's CPU stage: when an iteration may start, and the CPU workers that size each batch
// and run the CPU operators (Note [Two CPU iterations]). The rest is in executor.cc.

#include "sluice/core/error.h"
#include "sluice/exec/executor.h"
#include "sluice/exec/executor_stats.h"

namespace sluice {

bool Executor::can_start_cpu_locked() const {
  if (failed_ || cpu_next_ >= scheduled_ || cpu_busy_ >= plan_.cpu_workers) return false;
  if (plan_.serial && (cpu_inflight_ > 0 || gpu_busy_ > 0 || !outputs_.empty() || !held_.empty())) {
    return false;
  }
  if (has_gpu_stage()) return cpu_inflight_ < plan_.cpu_in_flight;
  const int taken = static_cast<int>(outputs_.size() + held_.size()) + cpu_busy_;
  return taken < plan_.cpu_only_in_flight;
}

// Note [Two CPU iterations]
// Within one iteration the CPU operators run one after another, each spread over the pool, and
// each ends on its slowest samples while other threads go idle. A pipelined CPU stage with a
// pool of 8 threads or more therefore has two workers, each running whole iterations: while one
// finishes an operator, the pool's idle threads take the other's tasks (the pool is FIFO, so the
// older iteration's tasks go first). Every operator still runs one iteration at a time and in order
// (op_turn_), so an operator's state is never touched by two iterations at once; sources are asked
// for the next batch's size only after they ran the previous one (sized_turn_), and iterations are
// handed on in order (handoff_turn_). The older iteration never waits for the younger one.
// From 12 pool threads and a cpu_queue_depth of 3 there are three workers (a third can only
// start while the consumer has asked for 3 iterations ahead; executor_policy.h).
// SLUICE_CPU_STAGE_WORKERS (1 to ThreadPool::kMaxCpuWorkers) sets another number; each worker
// holds one more batch of memory.
void Executor::wait_turn(const int64_t& turn, int64_t iteration) {
  std::unique_lock<std::mutex> lk(turn_mu_);
  turn_cv_.wait(lk, [&] { return turn >= iteration; });
}

void Executor::pass_turn(int64_t& turn, int64_t iteration) {
  {
    std::lock_guard<std::mutex> lk(turn_mu_);
    turn = iteration + 1;
  }
  turn_cv_.notify_all();
}

void Executor::cpu_loop(int worker) {
  ThreadPool::name_this_thread(worker == 0 ? "sluice-cpu" : "sluice-cpu" + std::to_string(worker));
  if (!cpu_slot_read_.empty()) {
    try {
      cuda::set_device(params_.device_id);  // before waiting for cpu_slot_read_
    } catch (...) {
    }
  }
  // The first worker uses the pool's first stage slot; the mixed and GPU threads the next two.
  const int caller_slot = pool_->num_threads() + (worker == 0 ? 0 : worker + 2);
  for (;;) {
    // 1. Wait for a scheduled iteration and room for its results.
    int64_t iteration, epoch;
    int slot_index;
    {
      std::unique_lock<std::mutex> lk(mu_);
      cv_.wait(lk, [&] { return stop_ || can_start_cpu_locked(); });
      if (stop_) return;
      iteration = cpu_next_++;
      epoch = epoch_;
      slot_index = static_cast<int>(iteration % cpu_slots_.size());
      if (cpu_busy_++ == 0) stats_->on_cpu_stage_busy();
      ++cpu_inflight_;
      Slot& s = cpu_slots_[slot_index];
      s.batch = BatchInfo();
      s.batch.iteration = iteration_base_ + iteration;
      s.error = nullptr;
      for (auto& [name, queue] : fed_) {
        if (!queue.empty()) {
          s.batch.fed.emplace(name, std::move(queue.front()));
          queue.pop_front();
        }
      }
    }
    Slot& slot = cpu_slots_[slot_index];

    // 2. Size the batch (sources), then run the CPU stage, each operator in its turn.
    int op = 0;
    try {
      if (!cpu_slot_read_.empty()) cpu_slot_read_[slot_index].synchronize();  // [Pinned transfers]
      wait_turn(sized_turn_, iteration);
      for (int i = 0; i < first_gpu_op_; ++i) {
        if (graph_.ops[i].schema->is_source()) wait_turn(op_turn_[i], iteration);
      }
      try {
        size_batch(slot.batch, epoch);
      } catch (...) {
        pass_turn(sized_turn_, iteration);
        throw;
      }
      pass_turn(sized_turn_, iteration);
      for (; op < first_gpu_op_; ++op) {
        wait_turn(op_turn_[op], iteration);
        run_stage(op, op + 1, slot, nullptr, caller_slot);
        pass_turn(op_turn_[op], iteration);
      }
    } catch (...) {
      slot.error = std::current_exception();
      for (; op < first_gpu_op_; ++op) {  // the operators this iteration did not reach
        wait_turn(op_turn_[op], iteration);
        pass_turn(op_turn_[op], iteration);
      }
    }

    // 3. Hand the iteration to the GPU stage, or publish it when there is room, in order.
    wait_turn(handoff_turn_, iteration);
    {
      std::unique_lock<std::mutex> lk(mu_);
      cv_.wait(lk, [&] {
        return stop_ || has_gpu_stage() ||
               static_cast<int>(outputs_.size() + held_.size()) < plan_.output_depth;
      });
      if (stop_) {  // reset() or destruction: the iteration is dropped
        lk.unlock();
        pass_turn(handoff_turn_, iteration);
        return;
      }
      if (--cpu_busy_ == 0) stats_->on_cpu_stage_idle();
      if (slot.error) failed_ = true;
      if (has_gpu_stage()) {
        cpu_ready_.push_back(slot_index);
      } else {
        outputs_.push_back(make_outputs(slot, nullptr));
        ++produced_;
        --cpu_inflight_;
      }
    }
    pass_turn(handoff_turn_, iteration);
    cv_.notify_all();
  }
}

// Runs the sources' begin_iteration and fills in the batch's size and samples (in its turn).
void Executor::size_batch(BatchInfo& b, int64_t epoch) {
  for (size_t i = 0; i < ops_.size(); ++i) {
    if (!graph_.ops[i].schema->is_source()) continue;
    try {
      ops_[i]->begin_iteration(b);
    } catch (...) {
      rethrow_with_context(std::current_exception(),
                           make_string(graph_.ops[i].describe(), ", iteration ", b.iteration));
    }
  }
  if (!b.sized) {
    b.size = params_.max_batch_size;
    b.sized = true;
  }
  SLUICE_CHECK(b.size >= 1 && b.size <= params_.max_batch_size, InvalidArgument, "iteration ",
               b.iteration, " has ", b.size, " samples; the pipeline's batch_size (maximum) is ",
               params_.max_batch_size);
  if (b.samples.empty()) {
    b.samples.resize(b.size);
    for (int i = 0; i < b.size; ++i) b.samples[i] = {"", epoch, samples_since_reset_ + i};
  }
  samples_since_reset_ += b.size;
}

}  // namespace sluice
