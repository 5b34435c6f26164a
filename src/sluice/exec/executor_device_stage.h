#pragma once
// DeviceStage: the threads of the mixed and GPU stages. One thread runs all the device
// operators, or, when a pipelined graph has both mixed and GPU operators, a mixed thread runs
// the mixed ones on a stream of its own and a GPU thread the GPU ones on the pipeline's stream,
// one iteration behind (Note [Mixed thread] in executor_device_stage.cc). The GPU thread (or the
// one thread) publishes each iteration's outputs.

#include <thread>
#include <vector>

#include "sluice/cuda/cuda_api.h"
#include "sluice/exec/executor_stage.h"

namespace sluice {

class DeviceStage {
 public:
  // `stream`: the pipeline's; `mixed_stream`: the mixed thread's (null without one).
  DeviceStage(const StageParts& parts, cuda::StreamHandle stream, cuda::StreamHandle mixed_stream);
  DeviceStage(const DeviceStage&) = delete;
  DeviceStage& operator=(const DeviceStage&) = delete;

  void start();
  // Waits for the threads to return, after StageQueues::stop(); their streams may still run.
  void join();

 private:
  void worker_loop(DevicePart part);
  // Runs `part`'s operators on iteration `h` on the part's stream, ordered against the other
  // device thread by events; a failure becomes the iteration's error.
  void run_operators(DevicePart part, const Handoff& h, Slot& cpu, Slot& gpu, int caller_slot);
  // After an operator ran out of memory: one prefetched output fewer, its buffers freed; false
  // when the depth is 1 already (Note [Lowering the prefetch depth]).
  bool make_room();

  const StageParts parts_;
  const cuda::StreamHandle stream_, mixed_stream_;
  // Mixed thread only: per GPU slot, the event that ends its mixed work; per set of mixed
  // intermediates, the event after the GPU operators that read it.
  std::vector<cuda::Event> mixed_done_, consumed_;
  std::thread mixed_thread_, gpu_thread_;
};

}  // namespace sluice
