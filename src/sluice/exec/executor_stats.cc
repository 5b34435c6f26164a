// The executor's reports: per-operator time and memory (executor_statistics()), and the
// stages' busy times for the bottleneck report (pipeline_statistics()).

#include "sluice/exec/executor.h"

#include <algorithm>

namespace sluice {

void Executor::record_memory_stats(int op, const std::vector<TensorList>& outs) {
  std::lock_guard<std::mutex> lk(stats_mu_);
  OpStats& st = *op_stats_[op];
  st.real.resize(outs.size());
  st.reserved.resize(outs.size());
  st.max_real.resize(outs.size());
  st.max_reserved.resize(outs.size());
  for (size_t o = 0; o < outs.size(); ++o) {
    const TensorList& t = outs[o];
    size_t n = std::max(1, t.num_samples());
    st.real[o] = t.total_bytes();
    st.reserved[o] = t.reserved_bytes();
    // DALI: the largest sample for per-sample storage, the average for contiguous storage.
    size_t per_sample = t.is_contiguous() ? t.total_bytes() / n : t.max_sample_bytes();
    st.max_real[o] = std::max(st.max_real[o], per_sample);
    st.max_reserved[o] = std::max(st.max_reserved[o], t.reserved_bytes() / n);
  }
}

nlohmann::json Executor::pipeline_statistics() const {
  std::lock_guard<std::mutex> lk(mu_);
  const double wall =
      timing_.first_schedule == std::chrono::steady_clock::time_point{}
          ? 0.0
          : std::chrono::duration<double>(std::chrono::steady_clock::now() - timing_.first_schedule)
                .count();
  // The CPU stage's busy time is added when its last running iteration ends; with two CPU
  // workers that may be long after it began.
  const auto since = std::chrono::steady_clock::now() - cpu_busy_since_;
  const double cpu_open = cpu_busy_ > 0 ? std::chrono::duration<double>(since).count() : 0.0;
  return {{"wall_time_s", wall},
          {"cpu_stage_busy_s", timing_.cpu_stage_ns / 1e9 + cpu_open},
          {"mixed_stage_busy_s", timing_.mixed_stage_ns / 1e9},
          {"gpu_stage_busy_s", timing_.gpu_stage_ns / 1e9},
          {"consumer_wait_s", timing_.wait_ns / 1e9},
          {"num_threads", params_.num_threads},
          {"cpu_workers", plan_.cpu_workers},
          {"prefetch_queue_depth", plan_.output_depth}};
}

nlohmann::json Executor::statistics() const {
  nlohmann::json j = nlohmann::json::object();
  std::lock_guard<std::mutex> lk(stats_mu_);
  for (size_t i = 0; i < ops_.size(); ++i) {
    const OpSpec& spec = graph_.ops[i];
    const OpStats& st = *op_stats_[i];
    nlohmann::json o = ops_[i]->stats();
    o["type"] = spec.type;
    o["device"] = op_device_name(spec.device);
    uint64_t runs = st.runs.load();
    o["runs"] = runs;
    o["total_time_ms"] = static_cast<double>(st.total_ns.load()) / 1e6;
    o["mean_time_ms"] = runs ? static_cast<double>(st.total_ns.load()) / 1e6 / runs : 0.0;
    // Per-sample work on the pool, summed over threads; over total_time_ms x num_threads it is how
    // busy the threads were while the operator ran (tails and serial parts lower it).
    o["work_time_ms"] = static_cast<double>(st.work_ns.load()) / 1e6;
    if (params_.enable_memory_stats) {
      o["real_memory_size"] = st.real;
      o["reserved_memory_size"] = st.reserved;
      o["max_real_memory_size"] = st.max_real;
      o["max_reserved_memory_size"] = st.max_reserved;
    }
    j[spec.name] = std::move(o);
  }
  return j;
}

}  // namespace sluice
