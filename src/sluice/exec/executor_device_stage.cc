#include "sluice/exec/executor_device_stage.h"

#include <chrono>
#include <cstdio>

#include "sluice/exec/executor_stats.h"

namespace sluice {

DeviceStage::DeviceStage(const StageParts& parts, cuda::StreamHandle stream,
                         cuda::StreamHandle mixed_stream)
    : parts_(parts), stream_(stream), mixed_stream_(mixed_stream) {
  if (parts_.plan.has_mixed_thread()) {
    for (int k = 0; k < parts_.plan.gpu_slots; ++k)
      mixed_done_.emplace_back(parts_.params.device_id);
    for (int k = 0; k < kMixedBufferSets; ++k) consumed_.emplace_back(parts_.params.device_id);
  }
}

void DeviceStage::start() {
  if (parts_.plan.has_mixed_thread()) {
    mixed_thread_ = std::thread([this] { worker_loop(DevicePart::kMixed); });
    gpu_thread_ = std::thread([this] { worker_loop(DevicePart::kGpu); });
  } else {
    gpu_thread_ = std::thread([this] { worker_loop(DevicePart::kAll); });
  }
}

void DeviceStage::join() {
  for (std::thread* t : {&mixed_thread_, &gpu_thread_}) {
    if (t->joinable()) t->join();
  }
}

// Note [Mixed thread]
// The mixed decoder's batch ends in work that waits on the host (nvJPEG's hardware submission),
// and while one thread also runs the GPU ops, that work pauses for them every batch. With a
// mixed thread, the GPU thread runs iteration i's GPU ops while the mixed thread decodes i+1 on
// its own stream. The GPU thread's stream waits for the mixed work of its iteration
// (mixed_done_), and the mixed thread's stream, before writing a set of mixed intermediates
// again, for the GPU ops that read it two iterations earlier (consumed_).
void DeviceStage::worker_loop(DevicePart part) {
  ThreadPool::name_this_thread(part == DevicePart::kMixed ? "sluice-mixed" : "sluice-gpu");
  parts_.pool.keep_this_thread_on_the_workers_cpus();
  try {
    cuda::set_device(parts_.params.device_id);
  } catch (...) {
  }
  const bool takes_from_cpu = part != DevicePart::kGpu;
  const int caller_slot = parts_.pool.num_threads() + (part == DevicePart::kGpu ? 2 : 1);
  Handoff h;
  // 1. Wait for an iteration from the previous stage and room for its results.
  while (parts_.queues.start_device(part, h)) {
    Slot& cpu = parts_.slots.cpu(h.cpu);
    Slot& gpu = parts_.slots.gpu(h.gpu);
    if (takes_from_cpu) {
      gpu.seq = h.seq;
      gpu.error = cpu.error;
    }

    // 2. Run this thread's ops on their stream.
    const auto stage_start = std::chrono::steady_clock::now();
    run_operators(part, h, cpu, gpu, caller_slot);
    const uint64_t ns = elapsed_ns(stage_start);
    if (part == DevicePart::kMixed) {
      parts_.stats.on_mixed_stage_work(ns);
      parts_.queues.finish_mixed(h);
      continue;
    }

    // 3. Publish; the CPU slot is free again.
    std::shared_ptr<Outputs> out;
    try {
      out = parts_.slots.make_outputs(cpu, &gpu);
    } catch (...) {
      out = std::make_shared<Outputs>();
      out->error = std::current_exception();
    }
    parts_.stats.on_gpu_stage_work(ns);
    parts_.queues.publish(std::move(out));
  }
}

void DeviceStage::run_operators(DevicePart part, const Handoff& h, Slot& cpu, Slot& gpu,
                                int caller_slot) {
  const bool mixed = part == DevicePart::kMixed;
  const cuda::StreamHandle stream = mixed ? mixed_stream_ : stream_;
  const int first = mixed ? parts_.plan.first_gpu_op : parts_.plan.mixed_end;
  const int last = mixed ? parts_.plan.mixed_end : parts_.plan.num_ops;
  if (!gpu.error) {
    try {
      const size_t set = static_cast<size_t>(gpu.seq % kMixedBufferSets);
      if (part == DevicePart::kMixed) {
        cuda::stream_wait_event(stream, consumed_[set].get());
      } else if (part == DevicePart::kGpu) {
        cuda::stream_wait_event(stream, mixed_done_[h.gpu].get());
      }
      parts_.runner.run(first, last, cpu, &gpu, caller_slot, [this] { return make_room(); });
      if (part == DevicePart::kMixed) {
        mixed_done_[h.gpu].record(stream);
      } else if (part == DevicePart::kGpu) {
        consumed_[set].record(stream);
      }
    } catch (...) {
      gpu.error = std::current_exception();
    }
  }
  if (part == DevicePart::kGpu) return;  // pinned CPU tensors go up in mixed operators (_to_gpu)
  if (cuda::Event* read = parts_.slots.cpu_slot_read(h.cpu)) {  // Note [Pinned transfers]
    try {  // also after a failure: copies may have been queued before it
      read->record(stream);
    } catch (...) {
      if (!gpu.error) gpu.error = std::current_exception();
    }
  }
}

// Note [Lowering the prefetch depth] in executor_queues.cc.
bool DeviceStage::make_room() {
  int slot = 0;
  if (!parts_.queues.retire_gpu_slot(slot)) return false;
  parts_.slots.free_gpu_outputs(slot);
  std::fprintf(stderr,
               "sluice: out of device memory on device %d: prefetch_queue_depth lowered to %d\n",
               parts_.params.device_id, parts_.queues.output_depth());
  return true;
}

}  // namespace sluice
