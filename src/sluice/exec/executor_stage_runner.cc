#include "sluice/exec/executor_stage_runner.h"

#include <chrono>

#include "sluice/core/error.h"
#include "sluice/exec/executor_stats.h"

namespace sluice {

StageRunner::StageRunner(const CompiledGraph& graph,
                         const std::vector<std::unique_ptr<Operator>>& ops,
                         const std::vector<OpContext>& contexts, SlotRings& slots,
                         ExecutorStats& stats, cuda::StreamHandle stream)
    : graph_(graph),
      ops_(ops),
      contexts_(contexts),
      slots_(slots),
      stats_(stats),
      stream_(stream) {}

void StageRunner::run(int first, int last, Slot& cpu, Slot* gpu, int caller_slot,
                      const std::function<bool()>& make_room) {
  for (int i = first; i < last; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    uint64_t work_ns = 0;
    for (;;) {
      try {
        work_ns = run_operator(i, cpu, gpu, caller_slot);
        break;
      } catch (const OutOfMemory&) {
        if (make_room && make_room()) continue;
        rethrow_with_context(std::current_exception(), describe(i, cpu));
      } catch (...) {
        rethrow_with_context(std::current_exception(), describe(i, cpu));
      }
    }
    stats_.on_operator_run(i, elapsed_ns(t0), work_ns);
    if (stats_.memory_stats()) stats_.on_operator_outputs(i, outputs_of(i, cpu, gpu));
  }
}

uint64_t StageRunner::run_operator(int i, Slot& cpu, Slot* gpu, int caller_slot) {
  auto named = [&](const std::string& name) -> TensorList* {
    const TensorRef& ref = graph_.tensor(name);
    return &slots_.tensor(cpu, gpu, ref.op, ref.output);
  };
  const OpSpec& spec = graph_.ops[i];
  Workspace::IO io;
  for (const auto& t : spec.inputs) io.inputs.push_back(named(t));
  for (const auto& [arg, t] : spec.arg_inputs) io.arg_inputs[arg] = named(t);
  io.outputs = outputs_of(i, cpu, gpu);
  const int n = operator_batch_size(spec, io.inputs, io.arg_inputs, cpu.batch.size);
  if (n == 0) {
    // An empty conditional branch: nothing to run; its outputs are empty too.
    for (TensorList* t : io.outputs) t->resize({}, t->dtype());
    return 0;
  }
  Workspace ws(spec, contexts_[i], cpu.batch, std::move(io), n, caller_slot,
               [&, i](const std::vector<int>& source) { remap_before(i, cpu, gpu, source); });
  ops_[i]->run(ws);
  return ws.work_ns();
}

std::string StageRunner::describe(int op, const Slot& cpu) const {
  return make_string(graph_.ops[op].describe(), ", iteration ", cpu.batch.iteration);
}

void StageRunner::begin_iteration(BatchInfo& b) {
  for (size_t i = 0; i < ops_.size(); ++i) {
    if (!graph_.ops[i].schema->is_source()) continue;
    try {
      ops_[i]->begin_iteration(b);
    } catch (...) {
      rethrow_with_context(std::current_exception(),
                           make_string(graph_.ops[i].describe(), ", iteration ", b.iteration));
    }
  }
}

std::vector<TensorList*> StageRunner::outputs_of(int op, Slot& cpu, Slot* gpu) {
  std::vector<TensorList*> outs;
  for (size_t o = 0; o < graph_.ops[op].outputs.size(); ++o) {
    outs.push_back(&slots_.tensor(cpu, gpu, op, static_cast<int>(o)));
  }
  return outs;
}

void StageRunner::remap_before(int op, Slot& cpu, Slot* gpu, const std::vector<int>& source) {
  for (int i = 0; i < op; ++i) {
    for (TensorList* t : outputs_of(i, cpu, gpu)) {
      if (t->num_samples() == static_cast<int>(source.size()))
        t->remap_samples(source, contexts_[op].stream ? contexts_[op].stream : stream_);
    }
  }
  std::vector<SampleInfo> samples = cpu.batch.samples;
  for (size_t k = 0; k < source.size(); ++k) cpu.batch.samples[k] = samples[source[k]];
}

}  // namespace sluice
