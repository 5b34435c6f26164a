// slice's host work per batch: the CPU operator on 256 samples of 8x8x3 UINT8, so small that
// copying the windows costs next to nothing and the time is the planning the GPU operator shares
// (arguments, windows, output shapes, copy descriptors). Reported per sample.

#include <benchmark/benchmark.h>

#include <cstring>

#include "sluice/exec/operator.h"
#include "sluice/graph/graph.h"
#include "sluice/parallel/thread_pool.h"

namespace sluice {
namespace {

constexpr int kBatch = 256;

// A batch of `n` samples of `shape`, every byte `value`.
TensorList batch_of(int n, const Shape& shape, DType dtype, uint8_t value) {
  TensorList t;
  t.resize(std::vector<Shape>(n, shape), dtype);
  for (int i = 0; i < n; ++i) std::memset(t.raw_sample(i), value, t.sample_bytes(i));
  return t;
}

// Runs slice (cpu) with `args` on the batch; `positional`: float anchor and shape inputs.
void run_slice(benchmark::State& state, const nlohmann::json& args, bool positional) {
  PipelineGraph g;
  const std::vector<std::string> inputs =
      positional ? std::vector<std::string>{"x", "anchor", "shape"} : std::vector<std::string>{"x"};
  g.add("slice", "slice", "cpu", inputs, {}, args);
  const OpSpec& spec = g.ops.back();
  std::unique_ptr<Operator> op = OperatorRegistry::instance().create(spec);
  ThreadPool pool(1);
  OpContext ctx;
  ctx.max_batch_size = kBatch;
  ctx.pool = &pool;
  op->setup(ctx);
  const TensorList x = batch_of(kBatch, {8, 8, 3}, DType::kUInt8, 7);
  TensorList anchor = batch_of(kBatch, {2}, DType::kFloat32, 0);
  TensorList shape = batch_of(kBatch, {2}, DType::kFloat32, 0);
  for (int i = 0; i < kBatch; ++i) {
    anchor.sample<float>(i)[0] = 0.1f, anchor.sample<float>(i)[1] = 0.15f;
    shape.sample<float>(i)[0] = 0.8f, shape.sample<float>(i)[1] = 0.7f;
  }
  TensorList out;
  BatchInfo batch;
  batch.size = kBatch;
  batch.samples.resize(kBatch);
  Workspace::IO io;
  io.inputs = {&x};
  if (positional) io.inputs = {&x, &anchor, &shape};
  io.outputs = {&out};
  Workspace ws(spec, ctx, batch, io, kBatch, 0, [](const std::vector<int>&) {});
  for (auto _ : state) op->run(ws);
  state.SetItemsProcessed(state.iterations() * kBatch);  // the rate's inverse: time per sample
}

void BM_SliceNamedArguments(benchmark::State& state) {
  run_slice(state, {{"rel_start", {0.1, 0.15}}, {"rel_shape", {0.8, 0.7}}, {"axis_names", "HW"}},
            false);
}
BENCHMARK(BM_SliceNamedArguments)->Unit(benchmark::kMicrosecond);

void BM_SliceAnchorShapeInputs(benchmark::State& state) {
  run_slice(state, {{"axis_names", "HW"}}, true);
}
BENCHMARK(BM_SliceAnchorShapeInputs)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace sluice
