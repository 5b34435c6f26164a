// The executor's own cost: a pipeline of light operators (batch 256 of scalars) where the
// operators' work is negligible, so the time per iteration is the engine's scheduling, buffer
// management, statistics and hand-off. Reported per operator per batch.

#include <benchmark/benchmark.h>

#include "sluice/exec/pipeline.h"

namespace sluice {
namespace {

PipelineGraph light_graph(int ops) {
  PipelineGraph g;
  auto x = g.add("random.coin_flip", "flip", "", {}, {}, {});
  for (int i = 1; i < ops; ++i) {
    x = g.add(i % 2 ? "cast" : "copy", "op" + std::to_string(i), "", {x[0]}, {},
              i % 2 ? nlohmann::json{{"dtype", i % 4 == 1 ? "FLOAT" : "INT32"}}
                    : nlohmann::json::object());
  }
  g.outputs = {x[0]};
  return g;
}

void BM_ExecutorOverheadPerOperator(benchmark::State& state) {
  const int ops = static_cast<int>(state.range(0));
  PipelineParams p;
  p.batch_size = 256;
  p.num_threads = 2;
  p.seed = 1;
  Pipeline pipe(light_graph(ops), p);
  for (int i = 0; i < 10; ++i) pipe.run();  // warm-up: buffers reach their sizes
  for (auto _ : state) benchmark::DoNotOptimize(pipe.run());
  // items = operator runs: the rate's inverse is the cost per operator per batch.
  state.SetItemsProcessed(state.iterations() * ops);
}
BENCHMARK(BM_ExecutorOverheadPerOperator)
    ->Arg(1)
    ->Arg(8)
    ->Arg(32)
    ->UseRealTime()
    ->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace sluice
