#include "sluice/exec/executor_queues.h"

#include <algorithm>

#include "sluice/core/error.h"
#include "sluice/exec/executor_stats.h"

namespace sluice {

StageQueues::StageQueues(const StagePlan& plan, ExecutorStats& stats, int64_t first_epoch)
    : plan_(plan), stats_(stats), epoch_(first_epoch), output_depth_(plan.output_depth) {
  for (int k = 0; k < plan.gpu_slots; ++k) gpu_ring_.push_back(k);
  gpu_free_.assign(gpu_ring_.begin(), gpu_ring_.end());
}

void StageQueues::schedule() {
  MutexLock lock(mu_);
  SLUICE_CHECK(!broken_, Error,
               "the pipeline stopped after an error (raised earlier); call reset() to continue");
  stats_.on_schedule();
  ++scheduled_;
  cv_.notify_all();
  if (plan_.synchronous) {
    // Synchronous mode: the iteration runs before this returns, unless the queue is full of
    // outputs the consumer has not released (then it runs when they are).
    const int64_t target = scheduled_;
    while (!stop_ && produced_ < target && !failed_ && published() < output_depth_) {
      cv_.wait(mu_);
    }
  }
}

bool StageQueues::wait_for_outputs(std::chrono::milliseconds timeout) {
  MutexLock lock(mu_);
  const auto start = std::chrono::steady_clock::now();
  const auto deadline = start + timeout;
  while (!output_ready()) {
    if (!cv_.wait_until(mu_, deadline)) break;
  }
  const bool ready = output_ready();
  stats_.on_consumer_wait(elapsed_ns(start));
  return ready;
}

std::shared_ptr<Outputs> StageQueues::share() {
  MutexLock lock(mu_);
  SLUICE_CHECK(!broken_, Error,
               "the pipeline stopped after an error (raised earlier); call reset() to continue");
  if (outputs_.empty()) {
    SLUICE_CHECK(produced_ < scheduled_, InvalidArgument,
                 "share_outputs() / outputs() called with no iteration scheduled: call "
                 "schedule_run() (or run()) first");
    SLUICE_CHECK(static_cast<int>(held_.size()) < output_depth_, InvalidArgument,
                 "share_outputs() called while ", held_.size(),
                 " outputs are held (prefetch_queue_depth); call release_outputs() first");
  }
  const auto wait_start = std::chrono::steady_clock::now();
  while (!stop_ && outputs_.empty()) cv_.wait(mu_);
  stats_.on_consumer_wait(elapsed_ns(wait_start));
  SLUICE_CHECK(!outputs_.empty(), Cancelled, "the pipeline is shutting down");
  auto out = std::move(outputs_.front());
  outputs_.pop_front();
  if (out->error) {
    broken_ = true;
    cv_.notify_all();
    std::rethrow_exception(out->error);
  }
  held_.push_back(out);
  return out;
}

void StageQueues::release() {
  {
    MutexLock lock(mu_);
    if (held_.empty()) return;
    held_.pop_front();
    if (!gpu_taken_.empty()) {  // outputs are published and released in the order they started
      gpu_free_.push_back(gpu_taken_.front());
      gpu_taken_.pop_front();
    }
  }
  cv_.notify_all();
}

void StageQueues::feed(const std::string& name, TensorList data) {
  MutexLock lock(mu_);
  fed_[name].push_back(std::move(data));
}

void StageQueues::stop() {
  {
    MutexLock lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
}

void StageQueues::clear() {
  MutexLock lock(mu_);
  iteration_base_ += cpu_next_;
  outputs_.clear();
  held_.clear();
  cpu_ready_.clear();
  mixed_ready_.clear();
  fed_.clear();
  gpu_free_.assign(gpu_ring_.begin(), gpu_ring_.end());
  gpu_taken_.clear();
  scheduled_ = cpu_next_ = produced_ = device_started_ = 0;
  cpu_busy_ = mixed_busy_ = gpu_busy_ = cpu_inflight_ = device_inflight_ = 0;
  failed_ = broken_ = false;
  ++epoch_;
  stats_.on_reset();
}

void StageQueues::start() {
  MutexLock lock(mu_);
  stop_ = false;
}

bool StageQueues::can_start_cpu() const {
  if (failed_ || cpu_next_ >= scheduled_ || cpu_busy_ >= plan_.cpu_workers) return false;
  if (plan_.serial && (cpu_inflight_ > 0 || gpu_busy_ > 0 || !outputs_.empty() || !held_.empty())) {
    return false;
  }
  if (plan_.has_gpu_stage()) return cpu_inflight_ < plan_.cpu_in_flight;
  return published() + cpu_busy_ < plan_.cpu_only_in_flight;
}

bool StageQueues::start_cpu(CpuIteration& it) {
  MutexLock lock(mu_);
  while (!stop_ && !can_start_cpu()) cv_.wait(mu_);
  if (stop_) return false;
  it.index = cpu_next_++;
  it.iteration = iteration_base_ + it.index;
  it.epoch = epoch_;
  if (cpu_busy_++ == 0) stats_.on_cpu_stage_busy();
  ++cpu_inflight_;
  it.fed.clear();
  for (auto& [name, queue] : fed_) {
    if (!queue.empty()) {
      it.fed.emplace(name, std::move(queue.front()));
      queue.pop_front();
    }
  }
  return true;
}

bool StageQueues::finish_cpu(int slot, bool failed, std::shared_ptr<Outputs> out) {
  {
    MutexLock lock(mu_);
    while (!stop_ && !plan_.has_gpu_stage() && published() >= output_depth_) cv_.wait(mu_);
    if (stop_) return false;  // reset() or destruction: the iteration is dropped
    if (--cpu_busy_ == 0) stats_.on_cpu_stage_idle();
    if (failed) failed_ = true;
    if (plan_.has_gpu_stage()) {
      cpu_ready_.push_back(slot);
    } else {
      outputs_.push_back(std::move(out));
      ++produced_;
      --cpu_inflight_;
    }
  }
  cv_.notify_all();
  return true;
}

bool StageQueues::can_start_device(DevicePart part) const {
  switch (part) {
    case DevicePart::kAll:
      return !cpu_ready_.empty() && !gpu_busy_ && published() < output_depth_ && !gpu_free_.empty();
    case DevicePart::kMixed:
      // At most kMixedBufferSets iterations past the CPU stage, and a free GPU slot.
      return !cpu_ready_.empty() && !mixed_busy_ && device_inflight_ < kMixedBufferSets &&
             !gpu_free_.empty();
    case DevicePart::kGpu:
      return !mixed_ready_.empty() && !gpu_busy_;
  }
  return false;
}

bool StageQueues::start_device(DevicePart part, Handoff& h) {
  MutexLock lock(mu_);
  while (!stop_ && !can_start_device(part)) cv_.wait(mu_);
  if (stop_) return false;
  if (part == DevicePart::kGpu) {
    h = mixed_ready_.front();
    mixed_ready_.pop_front();
    ++gpu_busy_;
    return true;
  }
  h.cpu = cpu_ready_.front();
  cpu_ready_.pop_front();
  h.seq = device_started_++;
  h.gpu = gpu_free_.front();
  gpu_free_.pop_front();
  gpu_taken_.push_back(h.gpu);
  ++device_inflight_;
  if (part == DevicePart::kMixed) {
    ++mixed_busy_;
  } else {
    ++gpu_busy_;
  }
  return true;
}

void StageQueues::finish_mixed(const Handoff& h) {
  {
    MutexLock lock(mu_);
    --mixed_busy_;
    mixed_ready_.push_back(h);
  }
  cv_.notify_all();
}

void StageQueues::publish(std::shared_ptr<Outputs> out) {
  {
    MutexLock lock(mu_);
    --gpu_busy_;
    --device_inflight_;
    --cpu_inflight_;
    if (out->error) failed_ = true;
    outputs_.push_back(std::move(out));
    ++produced_;
  }
  cv_.notify_all();
}

// Note [Lowering the prefetch depth]
// When a device operator runs out of device memory (the GPU is full, or device_memory_limit is
// reached), the device stage gives up one prefetched output for good: the ring loses a GPU slot,
// whose output buffers are freed, and the operator runs again (DeviceStage::make_room). The slot
// taken out is the one that became free longest ago, so the consumer has most likely dropped the
// tensors it shared with it. While no slot is free, every slot is published, held or in a device
// stage, so with at least three in the ring one is published and the consumer frees it: a
// consumer holding them all gets the "outputs are held" error from share() instead of a hang.
// The depth never goes below 1 (two slots); past that the out-of-memory error is the
// iteration's.
bool StageQueues::retire_gpu_slot(int& slot) {
  MutexLock lock(mu_);
  if (output_depth_ <= 1 || stop_) return false;
  --output_depth_;
  while (!stop_ && gpu_free_.empty()) cv_.wait(mu_);
  if (stop_) return false;
  slot = gpu_free_.front();
  gpu_free_.pop_front();
  gpu_ring_.erase(std::find(gpu_ring_.begin(), gpu_ring_.end(), slot));
  return true;
}

int StageQueues::output_depth() const {
  MutexLock lock(mu_);
  return output_depth_;
}

}  // namespace sluice
