#include "sluice/exec/executor_stats.h"

#include <algorithm>

#include "sluice/exec/operator.h"
#include "sluice/graph/graph.h"

namespace sluice {

uint64_t elapsed_ns(std::chrono::steady_clock::time_point start) {
  return static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start)
          .count());
}

ExecutorStats::ExecutorStats(int num_ops, bool memory_stats)
    : memory_stats_(memory_stats), times_(num_ops), memory_(num_ops) {}

void ExecutorStats::on_operator_run(int op, uint64_t ns, uint64_t work_ns) {
  OpTimes& t = times_[op];
  t.runs.fetch_add(1, std::memory_order_relaxed);
  t.total_ns.fetch_add(ns, std::memory_order_relaxed);
  t.work_ns.fetch_add(work_ns, std::memory_order_relaxed);
}

void ExecutorStats::on_operator_outputs(int op, const std::vector<TensorList*>& outputs) {
  MutexLock lock(mu_);
  OpMemory& st = memory_[op];
  st.real.resize(outputs.size());
  st.reserved.resize(outputs.size());
  st.max_real.resize(outputs.size());
  st.max_reserved.resize(outputs.size());
  for (size_t o = 0; o < outputs.size(); ++o) {
    const TensorList& t = *outputs[o];
    size_t n = std::max(1, t.num_samples());
    st.real[o] = t.total_bytes();
    st.reserved[o] = t.reserved_bytes();
    // DALI: the largest sample for per-sample storage, the average for contiguous storage.
    size_t per_sample = t.is_contiguous() ? t.total_bytes() / n : t.max_sample_bytes();
    st.max_real[o] = std::max(st.max_real[o], per_sample);
    st.max_reserved[o] = std::max(st.max_reserved[o], t.reserved_bytes() / n);
  }
}

void ExecutorStats::on_schedule() {
  MutexLock lock(mu_);
  if (first_schedule_ == std::chrono::steady_clock::time_point{}) {
    first_schedule_ = std::chrono::steady_clock::now();
  }
}

void ExecutorStats::on_consumer_wait(uint64_t ns) {
  MutexLock lock(mu_);
  wait_ns_ += ns;
}

void ExecutorStats::on_cpu_stage_busy() {
  MutexLock lock(mu_);
  cpu_busy_ = true;
  cpu_busy_since_ = std::chrono::steady_clock::now();
}

void ExecutorStats::on_cpu_stage_idle() {
  MutexLock lock(mu_);
  cpu_busy_ = false;
  cpu_stage_ns_ += elapsed_ns(cpu_busy_since_);
}

void ExecutorStats::on_mixed_stage_work(uint64_t ns) {
  MutexLock lock(mu_);
  mixed_stage_ns_ += ns;
}

void ExecutorStats::on_gpu_stage_work(uint64_t ns) {
  MutexLock lock(mu_);
  gpu_stage_ns_ += ns;
}

void ExecutorStats::on_reset() {
  MutexLock lock(mu_);
  cpu_busy_ = false;
}

nlohmann::json ExecutorStats::stages() const {
  MutexLock lock(mu_);
  const double wall =
      first_schedule_ == std::chrono::steady_clock::time_point{}
          ? 0.0
          : std::chrono::duration<double>(std::chrono::steady_clock::now() - first_schedule_)
                .count();
  // The CPU stage's busy time is added when its last running iteration ends; with two CPU
  // workers that may be long after it began.
  const auto since = std::chrono::steady_clock::now() - cpu_busy_since_;
  const double cpu_open = cpu_busy_ ? std::chrono::duration<double>(since).count() : 0.0;
  return {{"wall_time_s", wall},
          {"cpu_stage_busy_s", cpu_stage_ns_ / 1e9 + cpu_open},
          {"mixed_stage_busy_s", mixed_stage_ns_ / 1e9},
          {"gpu_stage_busy_s", gpu_stage_ns_ / 1e9},
          {"consumer_wait_s", wait_ns_ / 1e9}};
}

nlohmann::json ExecutorStats::operators(const CompiledGraph& graph,
                                        const std::vector<std::unique_ptr<Operator>>& ops) const {
  nlohmann::json j = nlohmann::json::object();
  MutexLock lock(mu_);
  for (size_t i = 0; i < ops.size(); ++i) {
    const OpSpec& spec = graph.ops[i];
    const OpTimes& t = times_[i];
    const OpMemory& m = memory_[i];
    nlohmann::json o = ops[i]->stats();
    o["type"] = spec.type;
    o["device"] = op_device_name(spec.device);
    uint64_t runs = t.runs.load();
    o["runs"] = runs;
    o["total_time_ms"] = static_cast<double>(t.total_ns.load()) / 1e6;
    o["mean_time_ms"] = runs ? static_cast<double>(t.total_ns.load()) / 1e6 / runs : 0.0;
    // Per-sample work on the pool, summed over threads; over total_time_ms x num_threads it is how
    // busy the threads were while the operator ran (tails and serial parts lower it).
    o["work_time_ms"] = static_cast<double>(t.work_ns.load()) / 1e6;
    if (memory_stats_) {
      o["real_memory_size"] = m.real;
      o["reserved_memory_size"] = m.reserved;
      o["max_real_memory_size"] = m.max_real;
      o["max_reserved_memory_size"] = m.max_reserved;
    }
    j[spec.name] = std::move(o);
  }
  return j;
}

}  // namespace sluice
