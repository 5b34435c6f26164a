#pragma once
// SlotRings: the buffers of the iterations in flight. The CPU stage and the device stages each
// have a ring of slots, as many as StagePlan lets them hold; a slot holds one iteration's
// outputs of that stage's operators, its batch and its error.
//
// Thread safety: none inside; a slot's owner is what makes access safe. A slot belongs to the
// worker that took its index from StageQueues until that worker hands the iteration on through
// StageQueues, whose mutex orders the one owner's writes before the next one's reads. The GPU
// intermediates that slots share (tensor()) are written by one device thread at a time, in
// iteration order.

#include <exception>
#include <memory>
#include <vector>

#include "sluice/cuda/cuda_api.h"
#include "sluice/exec/executor.h"
#include "sluice/exec/executor_policy.h"
#include "sluice/exec/operator.h"

namespace sluice {

struct Slot {
  std::vector<std::vector<TensorList>> outputs;  // [op][output] (this stage's ops only)
  BatchInfo batch;
  std::exception_ptr error;
  int64_t seq = 0;  // GPU slots: iterations the device stages started before this one
};

class SlotRings {
 public:
  // `contexts`: the operators' contexts (their streams); `stream`: the pipeline's stream, which
  // publishes outputs.
  SlotRings(const CompiledGraph& graph, const ExecutorParams& params, const StagePlan& plan,
            const std::vector<OpContext>& contexts, cuda::StreamHandle stream);
  SlotRings(const SlotRings&) = delete;
  SlotRings& operator=(const SlotRings&) = delete;

  int cpu_size() const { return static_cast<int>(cpu_slots_.size()); }
  int gpu_size() const { return static_cast<int>(gpu_slots_.size()); }
  Slot& cpu(int index) { return cpu_slots_[index]; }
  Slot& gpu(int index) { return gpu_slots_[index]; }

  // The tensor `output` of operator `op` in the iteration of slots `cpu` and `gpu` (null in
  // the CPU stage).
  TensorList& tensor(Slot& cpu, Slot* gpu, int op, int output);

  // Frees the buffers GPU slot `index` keeps for its pipeline outputs (a slot leaving the ring,
  // Note [Lowering the prefetch depth]); the intermediates it may hold for all slots stay.
  void free_gpu_outputs(int index);

  // Note [Pinned transfers]: recorded after the device stage that reads CPU slot `index` has
  // queued its copies; null when no CPU tensor is pinned.
  bool has_pinned() const { return !cpu_slot_read_.empty(); }
  cuda::Event* cpu_slot_read(int index) {
    return cpu_slot_read_.empty() ? nullptr : &cpu_slot_read_[index];
  }

  // The iteration in slots `cpu` and `gpu` (null without a GPU stage) as the consumer gets it:
  // the pipeline's outputs, sharing storage with the slots, or the iteration's error.
  std::shared_ptr<Outputs> make_outputs(Slot& cpu, Slot* gpu) const;

 private:
  Slot make_slot(int first, int last, const std::vector<std::vector<char>>& pinned,
                 const std::vector<OpContext>& contexts) const;

  const CompiledGraph& graph_;
  const ExecutorParams& params_;
  const StagePlan& plan_;
  const cuda::StreamHandle stream_;
  std::vector<Slot> cpu_slots_, gpu_slots_;
  // GPU-stage tensors that are not pipeline outputs live only within one iteration of the GPU
  // stage, which runs iterations one after another on one stream: one buffer serves them all
  // (the one in gpu_slots_[0]), instead of one per prefetched iteration. With a mixed thread,
  // the mixed ops' ones alternate between kMixedBufferSets (gpu_slots_[seq % 2]): the mixed
  // thread writes one while the GPU thread reads the other.
  std::vector<std::vector<char>> shared_gpu_;  // [op - first_gpu_op][output]
  std::vector<cuda::Event> cpu_slot_read_;     // [CPU slot]; empty when nothing is pinned
};

}  // namespace sluice
