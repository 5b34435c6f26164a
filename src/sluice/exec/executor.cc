#include "sluice/exec/executor.h"

#include <algorithm>

#include "sluice/core/error.h"
#include "sluice/exec/executor_cpu_stage.h"
#include "sluice/exec/executor_device_stage.h"

namespace sluice {

Executor::Executor(CompiledGraph graph, ExecutorParams params)
    : graph_(std::move(graph)), params_(params) {
  SLUICE_CHECK(params_.max_batch_size >= 1, InvalidArgument, "batch_size must be >= 1, got ",
               params_.max_batch_size);
  SLUICE_CHECK(params_.num_threads >= 1, InvalidArgument, "num_threads must be >= 1, got ",
               params_.num_threads);
  SLUICE_CHECK(params_.cpu_queue_depth >= 1 && params_.gpu_queue_depth >= 1, InvalidArgument,
               "prefetch_queue_depth must be >= 1");
  if (!params_.pipelined) params_.cpu_queue_depth = params_.gpu_queue_depth = 1;
  plan_ = StagePlan::make(graph_, params_);
  if (plan_.has_gpu_stage()) {
    SLUICE_CHECK(params_.device_id >= 0, InvalidArgument, graph_.ops[plan_.first_gpu_op].describe(),
                 " needs a GPU but the pipeline has device_id=None");
    cuda::require_device(params_.device_id);
    stream_ = cuda::PooledStream(params_.device_id, params_.stream_priority);
  }
  if (plan_.has_mixed_thread()) {
    mixed_stream_ = cuda::PooledStream(params_.device_id, params_.stream_priority);
  }

  // Under torchrun the ranks of a host divide its cores: this pipeline's workers get its rank's
  // share, one per core, unless SLUICE_AFFINITY_MASK names the cores.
  // Note [Stage threads stay on the pipeline's cores]
  // The stage threads (CPU stage workers, the mixed and GPU threads) are not pool workers, but
  // they run a batch's work inline (parallel_for's caller slot) and decode next to the workers.
  // Left free, the scheduler may put them on the cores a rank keeps for its training loop
  // (Python's thread, DDP's and NCCL's). Whenever the workers are pinned, the stage threads run
  // on the workers' cores, so that a pipeline given cores (a rank's share, SLUICE_AFFINITY_MASK,
  // set_affinity) uses those alone. Two-GPU training measured the same with and without it
  // (bench/RESULTS.md#two-gpus): a matter of keeping to the cores given, not of speed.
  std::vector<int> affinity = ThreadPool::affinity_from_env().empty()
                                  ? ThreadPool::rank_share_from_env()
                                  : std::vector<int>{};
  if (!affinity.empty()) {
    params_.num_threads = std::min(params_.num_threads, static_cast<int>(affinity.size()));
    affinity.resize(params_.num_threads);
  } else if (params_.set_affinity) {
    affinity = ThreadPool::default_affinity(params_.num_threads, params_.device_id);
  }
  pool_ = std::make_unique<ThreadPool>(params_.num_threads, std::move(affinity),
                                       plan_.has_gpu_stage() ? params_.device_id : -1);
  make_operators();

  stats_ = std::make_unique<ExecutorStats>(plan_.num_ops, params_.enable_memory_stats);
  slots_ = std::make_unique<SlotRings>(graph_, params_, plan_, contexts_, stream_.get());
  runner_ = std::make_unique<StageRunner>(graph_, ops_, contexts_, *slots_, *stats_, stream_.get());
  queues_ = std::make_unique<StageQueues>(plan_, *stats_, params_.first_epoch);
  const StageParts parts{graph_, params_, plan_, *pool_, *runner_, *slots_, *queues_, *stats_};
  cpu_stage_ = std::make_unique<CpuStage>(parts);
  if (plan_.has_gpu_stage()) {
    device_stage_ = std::make_unique<DeviceStage>(parts, stream_.get(), mixed_stream_.get());
  }
  start_stages();
}

Executor::~Executor() {
  stop_stages();
}

void Executor::make_operators() {
  const int n = plan_.num_ops;
  contexts_.resize(n);
  for (int i = 0; i < n; ++i) {
    const OpSpec& spec = graph_.ops[i];
    OpContext& ctx = contexts_[i];
    ctx.max_batch_size = params_.max_batch_size;
    ctx.num_threads = params_.num_threads;
    ctx.num_slots = pool_->num_slots();
    ctx.device_id = params_.device_id;
    ctx.stream_priority = params_.stream_priority;
    ctx.seed = operator_seed(params_.seed, i, spec.arg<int64_t>("seed"));
    ctx.pool = pool_.get();
    ctx.stream = spec.device == OpDevice::kCPU ? nullptr : stream_.get();
    if (i >= plan_.first_gpu_op && i < plan_.mixed_end) ctx.stream = mixed_stream_.get();
    SLUICE_ENFORCE(spec.device == OpDevice::kCPU || ctx.stream, "GPU stage without a stream");
    ops_.push_back(OperatorRegistry::instance().create(spec));
    try {
      ops_.back()->setup(ctx);
    } catch (...) {
      rethrow_with_context(std::current_exception(), spec.describe());
    }
  }
}

void Executor::start_stages() {
  queues_->start();
  cpu_stage_->start();
  if (device_stage_) device_stage_->start();
}

void Executor::stop_stages() {
  queues_->stop();
  cpu_stage_->join();
  if (device_stage_) device_stage_->join();
  for (const cuda::PooledStream* s : {&mixed_stream_, &stream_}) {
    if (!s->get()) continue;
    try {
      s->synchronize();
    } catch (...) {
    }
  }
}

void Executor::schedule_run() {
  queues_->schedule();
}

bool Executor::wait_for_outputs(std::chrono::milliseconds timeout) {
  return queues_->wait_for_outputs(timeout);
}

std::shared_ptr<Outputs> Executor::share_outputs() {
  return queues_->share();
}

void Executor::release_outputs() {
  queues_->release();
}

void Executor::reset() {
  stop_stages();
  queues_->clear();
  for (auto& op : ops_) op->reset();
  start_stages();
}

void Executor::feed(const std::string& name, TensorList data) {
  int i = graph_.find_op(name);
  SLUICE_CHECK(i >= 0 && graph_.ops[i].type == "external_source", InvalidArgument,
               "feed_input: no external_source named '", name, "' in this pipeline");
  queues_->feed(name, std::move(data));
}

bool Executor::has_operator(std::string_view name) const {
  return graph_.find_op(name) >= 0;
}

nlohmann::json Executor::reader_meta(const std::string& name) const {
  int i = graph_.find_op(name);
  SLUICE_CHECK(i >= 0, InvalidArgument, "no operator named '", name, "' in this pipeline");
  return ops_[i]->reader_meta();
}

std::vector<std::string> Executor::reader_names() const {
  std::vector<std::string> names;
  for (size_t i = 0; i < ops_.size(); ++i) {
    if (!ops_[i]->reader_meta().is_null()) names.push_back(graph_.ops[i].name);
  }
  return names;
}

nlohmann::json Executor::statistics() const {
  return stats_->operators(graph_, ops_);
}

nlohmann::json Executor::pipeline_statistics() const {
  nlohmann::json j = stats_->stages();
  j["num_threads"] = params_.num_threads;
  j["cpu_workers"] = plan_.cpu_workers;
  j["prefetch_queue_depth"] = queues_->output_depth();  // lowered when memory ran out
  return j;
}

}  // namespace sluice
