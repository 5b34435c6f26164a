#include "sluice/exec/pipeline.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <type_traits>

#include "sluice/core/env.h"
#include "sluice/core/error.h"
#include "sluice/parallel/thread_pool.h"

namespace sluice {
namespace {

// Stores an integral JSON number into `out` when it is exactly representable there (integral
// floats such as 2.0 included); false otherwise. nlohmann's get<int>() would wrap integers and
// convert out-of-range floats with undefined behaviour (tools/fuzz/fuzz_pipeline_json).
template <typename T>
bool json_to_integer(const nlohmann::json& v, T& out) {
  using Limits = std::numeric_limits<T>;
  if (v.is_number_unsigned()) {
    const uint64_t u = v.get<uint64_t>();
    if (u > static_cast<uint64_t>(Limits::max())) return false;
    out = static_cast<T>(u);
    return true;
  }
  if (v.is_number_integer()) {
    const int64_t i = v.get<int64_t>();
    if (i < static_cast<int64_t>(Limits::min()) || i > static_cast<int64_t>(Limits::max())) {
      return false;
    }
    out = static_cast<T>(i);
    return true;
  }
  if (v.is_number_float()) {
    const double d = v.get<double>();
    // -2^63 <= d < 2^63 is exactly the double range that converts to int64 without UB.
    if (!(std::floor(d) == d && d >= -0x1p63 && d < 0x1p63)) return false;
    const auto i = static_cast<int64_t>(d);
    if (i < static_cast<int64_t>(Limits::min()) || i > static_cast<int64_t>(Limits::max())) {
      return false;
    }
    out = static_cast<T>(i);
    return true;
  }
  return false;
}

}  // namespace

nlohmann::json PipelineParams::to_json() const {
  nlohmann::json j;
  j["batch_size"] = batch_size;
  j["num_threads"] = num_threads;
  j["device_id"] = device_id;
  j["seed"] = seed;
  j["exec_pipelined"] = exec_pipelined;
  j["exec_async"] = exec_async;
  if (separated_queues) {
    j["prefetch_queue_depth"] = {{"cpu_size", cpu_queue_depth}, {"gpu_size", gpu_queue_depth}};
  } else {
    j["prefetch_queue_depth"] = cpu_queue_depth;
  }
  j["bytes_per_sample"] = bytes_per_sample;
  j["set_affinity"] = set_affinity;
  j["max_streams"] = max_streams;
  j["default_cuda_stream_priority"] = default_cuda_stream_priority;
  j["enable_memory_stats"] = enable_memory_stats;
  return j;
}

void PipelineParams::update_from_json(const nlohmann::json& j) {
  if (j.is_null()) return;
  SLUICE_CHECK(j.is_object(), InvalidArgument, "pipeline parameters must be a mapping");
  auto get = [&](const char* key, auto& field) {
    if (!j.contains(key) || j[key].is_null()) return;
    using T = std::decay_t<decltype(field)>;
    bool ok;
    if constexpr (std::is_same_v<T, bool>) {
      ok = j[key].is_boolean();
      if (ok) field = j[key].get<bool>();
    } else if (j[key].is_boolean()) {
      ok = true;  // as Python, where bool is an int
      field = j[key].get<bool>() ? 1 : 0;
    } else {
      ok = json_to_integer(j[key], field);
    }
    SLUICE_CHECK(ok, InvalidArgument, "pipeline parameter '", key,
                 "' has the wrong type: ", j[key].dump());
  };
  get("batch_size", batch_size);
  get("num_threads", num_threads);
  get("device_id", device_id);
  get("seed", seed);
  get("exec_pipelined", exec_pipelined);
  get("exec_async", exec_async);
  get("bytes_per_sample", bytes_per_sample);
  get("set_affinity", set_affinity);
  get("max_streams", max_streams);
  get("default_cuda_stream_priority", default_cuda_stream_priority);
  get("enable_memory_stats", enable_memory_stats);
  get("first_epoch", first_epoch);
  get("first_sample", first_sample);
  if (j.contains("prefetch_queue_depth") && !j["prefetch_queue_depth"].is_null()) {
    const auto& d = j["prefetch_queue_depth"];
    if (d.is_object()) {
      SLUICE_CHECK(d.contains("cpu_size") && d.contains("gpu_size") &&
                       d["cpu_size"].is_number_integer() && d["gpu_size"].is_number_integer() &&
                       json_to_integer(d["cpu_size"], cpu_queue_depth) &&
                       json_to_integer(d["gpu_size"], gpu_queue_depth),
                   InvalidArgument,
                   "prefetch_queue_depth must be an int or {\"cpu_size\": int, \"gpu_size\": int}");
      separated_queues = true;
    } else {
      SLUICE_CHECK(d.is_number_integer() && json_to_integer(d, cpu_queue_depth), InvalidArgument,
                   "prefetch_queue_depth must be an int or {\"cpu_size\": int, \"gpu_size\": int}");
      gpu_queue_depth = cpu_queue_depth;
      separated_queues = false;
    }
  }
}

Pipeline::Pipeline(PipelineGraph graph, PipelineParams params) : params_(params) {
  SLUICE_CHECK(params_.batch_size >= 1, InvalidArgument,
               "batch_size must be a positive integer, got ", params_.batch_size);
  SLUICE_CHECK(params_.num_threads >= 1, InvalidArgument,
               "num_threads must be a positive integer, got ", params_.num_threads);
  SLUICE_CHECK(params_.cpu_queue_depth >= 1 && params_.gpu_queue_depth >= 1, InvalidArgument,
               "prefetch_queue_depth must be >= 1");
  SLUICE_CHECK(params_.bytes_per_sample >= 0, InvalidArgument, "bytes_per_sample must be >= 0");
  SLUICE_CHECK(params_.first_epoch >= 0 && params_.first_sample >= 0, InvalidArgument,
               "first_epoch and first_sample must be >= 0");
  if (params_.seed < 0) {
    std::random_device rd;
    params_.seed = static_cast<int64_t>((static_cast<uint64_t>(rd()) << 31) ^ rd()) & INT64_MAX;
  }
  ExecutorParams e;
  e.max_batch_size = params_.batch_size;
  e.num_threads = params_.num_threads;
  e.device_id = params_.device_id;
  e.seed = params_.seed;
  e.pipelined = params_.exec_pipelined;
  e.async = params_.exec_async;
  e.cpu_queue_depth = params_.cpu_queue_depth;
  e.gpu_queue_depth = params_.gpu_queue_depth;
  e.bytes_per_sample = static_cast<size_t>(params_.bytes_per_sample);
  e.set_affinity = params_.set_affinity;
  e.stream_priority = params_.default_cuda_stream_priority;
  e.enable_memory_stats = params_.enable_memory_stats;
  e.first_epoch = params_.first_epoch;
  e.first_sample = params_.first_sample;
  // How many iterations a pipelined CPU stage runs at once (Note [Two CPU iterations] in
  // executor_cpu_stage.cc); unset: the executor's choice.
  e.cpu_workers = env_int("SLUICE_CPU_STAGE_WORKERS", 0, 1, ThreadPool::kMaxCpuWorkers);
  executor_ = std::make_unique<Executor>(compile_graph(std::move(graph)), e);
}

std::unique_ptr<Pipeline> Pipeline::deserialize(const std::string& document,
                                                const nlohmann::json& overrides) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(document);
  } catch (const nlohmann::json::exception& e) {
    throw InvalidArgument(
        make_string("not a serialised Sluice pipeline (invalid JSON: ", e.what(), ")"));
  }
  // Compared as JSON values: value("format", "") would throw a json::type_error for a
  // non-string "format", and value("version", 0) converts a float out of int range (UB).
  SLUICE_CHECK(j.is_object() && j.contains("format") && j["format"] == "sluice-pipeline",
               InvalidArgument,
               "not a serialised Sluice pipeline (missing \"format\": \"sluice-pipeline\")");
  const nlohmann::json version = j.contains("version") ? j["version"] : nlohmann::json(0);
  SLUICE_CHECK(version == 1, InvalidArgument, "unsupported pipeline format version ",
               version.dump());
  PipelineParams p;
  p.update_from_json(j.value("params", nlohmann::json::object()));
  p.update_from_json(overrides);
  return std::make_unique<Pipeline>(graph_from_json(j), p);
}

std::string Pipeline::serialize() const {
  nlohmann::json j = graph_to_json(graph().ops, graph().outputs);
  j["format"] = "sluice-pipeline";
  j["version"] = 1;
  j["params"] = params_.to_json();
  return j.dump(1);
}

std::shared_ptr<Outputs> Pipeline::run() {
  Executor& ex = *executor_;
  ex.release_outputs();
  if (!prefetched_) {
    int depth = ex.has_gpu_stage() ? params_.gpu_queue_depth : params_.cpu_queue_depth;
    for (int i = 0; i < depth; ++i) ex.schedule_run();
    prefetched_ = true;
  } else {
    ex.schedule_run();
  }
  return ex.share_outputs();
}

}  // namespace sluice
