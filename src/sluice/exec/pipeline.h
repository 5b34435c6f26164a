#pragma once
// The C++ pipeline API: a graph plus parameters, built into an executor. The Python Pipeline
// class wraps this; C++ programs can use it directly (examples/cpp).
//
// A pipeline serialises to a JSON document {"format": "sluice-pipeline", "version": 1,
// "params": {...}, "ops": [...], "outputs": [...]} - data only; loading one runs no code.

#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sluice/exec/executor.h"
#include "sluice/graph/graph.h"

namespace sluice {

struct PipelineParams {
  int batch_size = -1;
  int num_threads = -1;
  int device_id = -1;  // -1: no GPU
  int64_t seed = -1;   // -1: random
  bool exec_pipelined = true;
  bool exec_async = true;
  int cpu_queue_depth = 2;
  int gpu_queue_depth = 2;
  bool separated_queues = false;  // prefetch_queue_depth given as {"cpu_size", "gpu_size"}
  int64_t bytes_per_sample = 0;
  bool set_affinity = false;
  int max_streams = -1;
  int default_cuda_stream_priority = 0;
  bool enable_memory_stats = false;
  // ExecutorParams::first_epoch / first_sample (a restored checkpoint); not serialised.
  int64_t first_epoch = 0;
  int64_t first_sample = 0;

  nlohmann::json to_json() const;
  // Reads the keys present in `j` over the current values.
  void update_from_json(const nlohmann::json& j);
};

class Pipeline {
 public:
  Pipeline(PipelineGraph graph, PipelineParams params);

  // Builds a pipeline from a serialised document; keys of `overrides` replace its parameters.
  static std::unique_ptr<Pipeline> deserialize(const std::string& document,
                                               const nlohmann::json& overrides = {});
  std::string serialize() const;

  const PipelineParams& params() const { return params_; }
  Executor& executor() { return *executor_; }
  const CompiledGraph& graph() const { return executor_->graph(); }

  // Convenience for C++ callers: releases the previous outputs, keeps the prefetch queue full
  // and returns the next outputs.
  std::shared_ptr<Outputs> run();

 private:
  PipelineParams params_;
  std::unique_ptr<Executor> executor_;
  bool prefetched_ = false;
};

}  // namespace sluice
