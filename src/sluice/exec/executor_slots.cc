#include "sluice/exec/executor_slots.h"

#include <algorithm>

namespace sluice {

SlotRings::SlotRings(const CompiledGraph& graph, const ExecutorParams& params,
                     const StagePlan& plan, const std::vector<OpContext>& contexts,
                     cuda::StreamHandle stream)
    : graph_(graph), params_(params), plan_(plan), stream_(stream) {
  // Note [Pinned transfers]
  // A CPU tensor that goes to the GPU (DataNode.gpu()) is kept in pinned memory, so the
  // transfer is one asynchronous copy instead of a copy into pinned staging on the pool and then
  // one up. Its CPU slot must then not be written again before that copy has run: the device
  // stage that reads CPU slots records cpu_slot_read_ after queuing its work, and the CPU stage
  // waits for it before running the slot's next iteration (normally long done by then).
  const int first_gpu = plan_.first_gpu_op;
  std::vector<std::vector<char>> pinned(first_gpu);
  for (int i = 0; i < first_gpu; ++i) pinned[i].assign(graph_.ops[i].outputs.size(), 0);
  bool any_pinned = false;
  for (int i = first_gpu; i < plan_.num_ops; ++i) {
    if (graph_.ops[i].type != "_to_gpu") continue;
    const TensorRef& ref = graph_.tensor(graph_.ops[i].inputs[0]);
    if (ref.op < first_gpu) pinned[ref.op][ref.output] = any_pinned = true;
  }

  shared_gpu_.resize(plan_.num_ops - first_gpu);
  for (int i = first_gpu; i < plan_.num_ops; ++i) {
    for (const auto& t : graph_.ops[i].outputs) {
      bool is_output =
          std::find(graph_.outputs.begin(), graph_.outputs.end(), t) != graph_.outputs.end();
      shared_gpu_[i - first_gpu].push_back(!is_output);
    }
  }
  for (int k = 0; k < plan_.cpu_slots; ++k) {
    cpu_slots_.push_back(make_slot(0, first_gpu, pinned, contexts));
  }
  for (int k = 0; any_pinned && k < plan_.cpu_slots; ++k) {
    cpu_slot_read_.emplace_back(params_.device_id);
  }
  for (int k = 0; k < plan_.gpu_slots; ++k) {
    gpu_slots_.push_back(make_slot(first_gpu, plan_.num_ops, pinned, contexts));
  }
}

Slot SlotRings::make_slot(int first, int last, const std::vector<std::vector<char>>& pinned,
                          const std::vector<OpContext>& contexts) const {
  Slot s;
  for (int i = first; i < last; ++i) {
    const OpSpec& spec = graph_.ops[i];
    bool gpu = spec.device != OpDevice::kCPU;
    std::vector<TensorList> outs;
    auto hints = spec.arg<std::vector<int64_t>>("bytes_per_sample_hint");
    for (size_t o = 0; o < spec.outputs.size(); ++o) {
      const MemoryKind kind = gpu            ? MemoryKind::kDevice
                              : pinned[i][o] ? MemoryKind::kPinned
                                             : MemoryKind::kHost;
      TensorList t(kind, gpu ? params_.device_id : -1);
      if (gpu) t.set_stream(contexts[i].stream);
      int64_t hint = hints.size() == 1 ? hints[0] : (o < hints.size() ? hints[o] : 0);
      size_t per_sample = hint > 0 ? static_cast<size_t>(hint) : params_.bytes_per_sample;
      if (per_sample > 0) t.reserve(per_sample * params_.max_batch_size);
      outs.push_back(std::move(t));
    }
    s.outputs.push_back(std::move(outs));
  }
  return s;
}

TensorList& SlotRings::tensor(Slot& cpu, Slot* gpu, int op, int output) {
  if (op < plan_.first_gpu_op) return cpu.outputs[op][output];
  const int k = op - plan_.first_gpu_op;
  if (!shared_gpu_[k][output]) return gpu->outputs[k][output];
  const size_t set = op < plan_.mixed_end ? static_cast<size_t>(gpu->seq % kMixedBufferSets) : 0;
  return gpu_slots_[set].outputs[k][output];
}

void SlotRings::free_gpu_outputs(int index) {
  Slot& s = gpu_slots_[index];
  for (size_t k = 0; k < shared_gpu_.size(); ++k) {
    for (size_t o = 0; o < shared_gpu_[k].size(); ++o) {
      TensorList& t = s.outputs[k][o];
      if (!shared_gpu_[k][o]) t = TensorList(t.kind(), t.device());  // frees stream-ordered
    }
  }
}

std::shared_ptr<Outputs> SlotRings::make_outputs(Slot& cpu, Slot* gpu) const {
  auto out = std::make_shared<Outputs>();
  out->error = gpu && gpu->error ? gpu->error : cpu.error;
  out->batch = cpu.batch;
  out->batch.fed.clear();
  out->stream = stream_;
  if (out->error) return out;
  for (const auto& name : graph_.outputs) {
    const TensorRef& ref = graph_.tensor(name);
    out->tensors.push_back(ref.op < plan_.first_gpu_op
                               ? cpu.outputs[ref.op][ref.output]
                               : gpu->outputs[ref.op - plan_.first_gpu_op][ref.output]);
  }
  if (gpu) {
    out->ready = std::make_shared<cuda::Event>(params_.device_id);
    out->ready->record(stream_);
  }
  return out;
}

}  // namespace sluice
