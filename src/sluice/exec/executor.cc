#include "sluice/exec/executor.h"

#include <algorithm>

#include "sluice/core/error.h"
#include "sluice/exec/executor_stats.h"

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
  first_gpu_op_ = plan_.first_gpu_op;
  mixed_end_ = plan_.mixed_end;
  const int n = plan_.num_ops;
  if (has_gpu_stage()) {
    SLUICE_CHECK(params_.device_id >= 0, InvalidArgument, graph_.ops[first_gpu_op_].describe(),
                 " needs a GPU but the pipeline has device_id=None");
    cuda::require_device(params_.device_id);
    stream_ = cuda::PooledStream(params_.device_id, params_.stream_priority);
  }
  if (plan_.has_mixed_thread()) {
    mixed_stream_ = cuda::PooledStream(params_.device_id, params_.stream_priority);
    for (int k = 0; k < plan_.gpu_slots; ++k) mixed_done_.emplace_back(params_.device_id);
    for (int k = 0; k < kMixedBufferSets; ++k) consumed_.emplace_back(params_.device_id);
  }

  std::vector<int> affinity;
  if (params_.set_affinity)
    affinity = ThreadPool::default_affinity(params_.num_threads, params_.device_id);
  pool_ = std::make_unique<ThreadPool>(params_.num_threads, std::move(affinity),
                                       has_gpu_stage() ? params_.device_id : -1);

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
    if (i >= first_gpu_op_ && i < mixed_end_) ctx.stream = mixed_stream_.get();
    SLUICE_ENFORCE(spec.device == OpDevice::kCPU || ctx.stream, "GPU stage without a stream");
    ops_.push_back(OperatorRegistry::instance().create(spec));
    try {
      ops_.back()->setup(ctx);
    } catch (...) {
      rethrow_with_context(std::current_exception(), spec.describe());
    }
  }

  stats_ = std::make_unique<ExecutorStats>(n, params_.enable_memory_stats);

  // Note [Pinned transfers]
  // A CPU tensor that goes to the GPU (DataNode.gpu()) is kept in pinned memory, so the
  // transfer is one asynchronous copy instead of a copy into pinned staging on the pool and then
  // one up. Its CPU slot must then not be written again before that copy has run: the device
  // stage that reads CPU slots records cpu_slot_read_ after queuing its work, and the CPU stage
  // waits for it before running the slot's next iteration (normally long done by then).
  std::vector<std::vector<char>> pinned(first_gpu_op_);
  for (int i = 0; i < first_gpu_op_; ++i) pinned[i].assign(graph_.ops[i].outputs.size(), 0);
  bool any_pinned = false;
  for (int i = first_gpu_op_; i < n; ++i) {
    if (graph_.ops[i].type != "_to_gpu") continue;
    const TensorRef& ref = graph_.tensor(graph_.ops[i].inputs[0]);
    if (ref.op < first_gpu_op_) pinned[ref.op][ref.output] = any_pinned = true;
  }

  // Slot rings, as many slots as StagePlan lets each stage hold.
  auto make_slot = [&](int first, int last) {
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
        if (gpu) t.set_stream(contexts_[i].stream);
        int64_t hint = hints.size() == 1 ? hints[0] : (o < hints.size() ? hints[o] : 0);
        size_t per_sample = hint > 0 ? static_cast<size_t>(hint) : params_.bytes_per_sample;
        if (per_sample > 0) t.reserve(per_sample * params_.max_batch_size);
        outs.push_back(std::move(t));
      }
      s.outputs.push_back(std::move(outs));
    }
    return s;
  };
  shared_gpu_.resize(n - first_gpu_op_);
  for (int i = first_gpu_op_; i < n; ++i) {
    for (const auto& t : graph_.ops[i].outputs) {
      bool is_output =
          std::find(graph_.outputs.begin(), graph_.outputs.end(), t) != graph_.outputs.end();
      shared_gpu_[i - first_gpu_op_].push_back(!is_output);
    }
  }
  for (int k = 0; k < plan_.cpu_slots; ++k) cpu_slots_.push_back(make_slot(0, first_gpu_op_));
  for (int k = 0; any_pinned && k < plan_.cpu_slots; ++k) {
    cpu_slot_read_.emplace_back(params_.device_id);
  }
  for (int k = 0; k < plan_.gpu_slots; ++k) gpu_slots_.push_back(make_slot(first_gpu_op_, n));
  start_threads();
}

Executor::~Executor() {
  stop_threads();
}

void Executor::start_threads() {
  stop_ = false;
  op_turn_.assign(first_gpu_op_, 0);
  sized_turn_ = handoff_turn_ = 0;
  samples_since_reset_ = 0;
  for (int w = 0; w < plan_.cpu_workers; ++w) {
    cpu_threads_.emplace_back([this, w] { cpu_loop(w); });
  }
  if (plan_.has_mixed_thread()) {
    mixed_thread_ = std::thread([this] { device_loop(Part::kMixed); });
    gpu_thread_ = std::thread([this] { device_loop(Part::kGpu); });
  } else if (has_gpu_stage()) {
    gpu_thread_ = std::thread([this] { device_loop(Part::kAll); });
  }
}

void Executor::stop_threads() {
  {
    std::lock_guard<std::mutex> lk(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  for (std::thread& t : cpu_threads_) t.join();
  cpu_threads_.clear();
  for (std::thread* t : {&mixed_thread_, &gpu_thread_}) {
    if (t->joinable()) t->join();
  }
  for (const cuda::PooledStream* s : {&mixed_stream_, &stream_}) {
    if (!s->get()) continue;
    try {
      s->synchronize();
    } catch (...) {
    }
  }
}

bool Executor::can_start_device_locked(Part part) const {
  const int published = static_cast<int>(outputs_.size() + held_.size());
  switch (part) {
    case Part::kAll:
      return !cpu_ready_.empty() && !gpu_busy_ && published < plan_.output_depth;
    case Part::kMixed:
      // At most kMixedBufferSets iterations past the CPU stage, and a free GPU slot: slots are
      // used and freed in order, so the oldest is free when fewer than all of them are taken.
      return !cpu_ready_.empty() && !mixed_busy_ && device_inflight_ < kMixedBufferSets &&
             published + device_inflight_ < plan_.gpu_slots;
    case Part::kGpu:
      return !mixed_ready_.empty() && !gpu_busy_;
  }
  return false;
}

// Note [Mixed thread]
// The mixed decoder's batch ends in work that waits on the host (nvJPEG's hardware submission),
// and while one thread also runs the GPU ops, that work pauses for them every batch. With a
// mixed thread, the GPU thread runs iteration i's GPU ops while the mixed thread decodes i+1 on
// its own stream. The GPU thread's stream waits for the mixed work of its iteration
// (mixed_done_), and the mixed thread's stream, before writing a set of mixed intermediates
// again, for the GPU ops that read it two iterations earlier (consumed_).
void Executor::device_loop(Part part) {
  ThreadPool::name_this_thread(part == Part::kMixed ? "sluice-mixed" : "sluice-gpu");
  try {
    cuda::set_device(params_.device_id);
  } catch (...) {
  }
  const bool takes_from_cpu = part != Part::kGpu;
  const bool publishes = part != Part::kMixed;
  const int first = part == Part::kMixed ? first_gpu_op_ : mixed_end_;
  const int last = part == Part::kMixed ? mixed_end_ : static_cast<int>(ops_.size());
  const int caller_slot = pool_->num_threads() + (part == Part::kGpu ? 2 : 1);
  const cuda::StreamHandle own_stream = part == Part::kMixed ? mixed_stream_.get() : stream_.get();
  int& busy = part == Part::kMixed ? mixed_busy_ : gpu_busy_;
  for (;;) {
    // 1. Wait for an iteration from the previous stage and room for its results.
    Handoff h;
    {
      std::unique_lock<std::mutex> lk(mu_);
      cv_.wait(lk, [&] { return stop_ || can_start_device_locked(part); });
      if (stop_) return;
      if (takes_from_cpu) {
        h.cpu = cpu_ready_.front();
        cpu_ready_.pop_front();
        h.gpu = static_cast<int>(device_started_ % static_cast<int64_t>(gpu_slots_.size()));
        gpu_slots_[h.gpu].seq = device_started_++;
        ++device_inflight_;
      } else {
        h = mixed_ready_.front();
        mixed_ready_.pop_front();
      }
      ++busy;
    }
    Slot& cpu = cpu_slots_[h.cpu];
    Slot& gpu = gpu_slots_[h.gpu];
    if (takes_from_cpu) gpu.error = cpu.error;

    // 2. Run this thread's ops on their stream.
    const auto stage_start = std::chrono::steady_clock::now();
    if (!gpu.error) {
      try {
        const size_t set = static_cast<size_t>(gpu.seq % kMixedBufferSets);
        if (part == Part::kMixed) {
          cuda::stream_wait_event(own_stream, consumed_[set].get());
        } else if (part == Part::kGpu) {
          cuda::stream_wait_event(own_stream, mixed_done_[h.gpu].get());
        }
        run_stage(first, last, cpu, &gpu, caller_slot);
        if (part == Part::kMixed) {
          mixed_done_[h.gpu].record(own_stream);
        } else if (part == Part::kGpu) {
          consumed_[set].record(own_stream);
        }
      } catch (...) {
        gpu.error = std::current_exception();
      }
    }
    if (takes_from_cpu && !cpu_slot_read_.empty()) {  // Note [Pinned transfers]
      try {  // also after a failure: copies may have been queued before it
        cpu_slot_read_[h.cpu].record(own_stream);
      } catch (...) {
        if (!gpu.error) gpu.error = std::current_exception();
      }
    }
    const uint64_t ns = elapsed_ns(stage_start);
    if (!publishes) {
      {
        std::lock_guard<std::mutex> lk(mu_);
        stats_->on_mixed_stage_work(ns);
        --busy;
        mixed_ready_.push_back(h);
      }
      cv_.notify_all();
      continue;
    }

    // 3. Publish; the CPU slot is free again.
    std::shared_ptr<Outputs> out;
    try {
      out = make_outputs(cpu, &gpu);
    } catch (...) {
      out = std::make_shared<Outputs>();
      out->error = std::current_exception();
    }
    {
      std::lock_guard<std::mutex> lk(mu_);
      stats_->on_gpu_stage_work(ns);
      --busy;
      --device_inflight_;
      --cpu_inflight_;
      if (out->error) failed_ = true;
      outputs_.push_back(std::move(out));
      ++produced_;
    }
    cv_.notify_all();
  }
}

std::vector<TensorList*> Executor::io_outputs_of(int op, Slot& cpu, Slot* gpu) {
  std::vector<TensorList*> outs;
  for (size_t o = 0; o < graph_.ops[op].outputs.size(); ++o) {
    outs.push_back(&tensor(cpu, gpu, op, static_cast<int>(o)));
  }
  return outs;
}

TensorList& Executor::tensor(Slot& cpu, Slot* gpu, int op, int output) {
  if (op < first_gpu_op_) return cpu.outputs[op][output];
  const int k = op - first_gpu_op_;
  if (!shared_gpu_[k][output]) return gpu->outputs[k][output];
  const size_t set = op < mixed_end_ ? static_cast<size_t>(gpu->seq % kMixedBufferSets) : 0;
  return gpu_slots_[set].outputs[k][output];
}

void Executor::run_stage(int first, int last, Slot& cpu, Slot* gpu, int caller_slot) {
  auto named = [&](const std::string& name) -> TensorList* {
    const TensorRef& ref = graph_.tensor(name);
    return &tensor(cpu, gpu, ref.op, ref.output);
  };
  for (int i = first; i < last; ++i) {
    const OpSpec& spec = graph_.ops[i];
    Workspace::IO io;
    for (const auto& t : spec.inputs) io.inputs.push_back(named(t));
    for (const auto& [arg, t] : spec.arg_inputs) io.arg_inputs[arg] = named(t);
    for (size_t o = 0; o < spec.outputs.size(); ++o) {
      io.outputs.push_back(&tensor(cpu, gpu, i, static_cast<int>(o)));
    }
    Workspace ws(spec, contexts_[i], cpu.batch, std::move(io), caller_slot,
                 [&, i](const std::vector<int>& source) { remap_before(i, cpu, gpu, source); });
    auto t0 = std::chrono::steady_clock::now();
    try {
      ops_[i]->run(ws);
    } catch (...) {
      rethrow_with_context(std::current_exception(),
                           make_string(spec.describe(), ", iteration ", cpu.batch.iteration));
    }
    stats_->on_operator_run(i, elapsed_ns(t0), ws.work_ns());
    if (stats_->memory_stats()) stats_->on_operator_outputs(i, io_outputs_of(i, cpu, gpu));
  }
}

void Executor::remap_before(int op, Slot& cpu, Slot* gpu, const std::vector<int>& source) {
  for (int i = 0; i < op; ++i) {
    for (TensorList* t : io_outputs_of(i, cpu, gpu)) {
      if (t->num_samples() == static_cast<int>(source.size()))
        t->remap_samples(source, contexts_[op].stream ? contexts_[op].stream : stream_.get());
    }
  }
  std::vector<SampleInfo> samples = cpu.batch.samples;
  for (size_t k = 0; k < source.size(); ++k) cpu.batch.samples[k] = samples[source[k]];
}

std::shared_ptr<Outputs> Executor::make_outputs(Slot& cpu, Slot* gpu) {
  auto out = std::make_shared<Outputs>();
  out->error = gpu && gpu->error ? gpu->error : cpu.error;
  out->batch = cpu.batch;
  out->batch.fed.clear();
  out->stream = stream_.get();
  if (out->error) return out;
  for (const auto& name : graph_.outputs) {
    const TensorRef& ref = graph_.tensor(name);
    out->tensors.push_back(ref.op < first_gpu_op_
                               ? cpu.outputs[ref.op][ref.output]
                               : gpu->outputs[ref.op - first_gpu_op_][ref.output]);
  }
  if (gpu) {
    out->ready = std::make_shared<cuda::Event>(params_.device_id);
    out->ready->record(stream_.get());
  }
  return out;
}

void Executor::schedule_run() {
  std::unique_lock<std::mutex> lk(mu_);
  SLUICE_CHECK(!broken_, Error,
               "the pipeline stopped after an error (raised earlier); call reset() to continue");
  stats_->on_schedule();
  ++scheduled_;
  cv_.notify_all();
  if (plan_.synchronous) {
    // Synchronous mode: the iteration runs before this returns, unless the queue is full of
    // outputs the consumer has not released (then it runs when they are).
    int64_t target = scheduled_;
    cv_.wait(lk, [&] {
      return stop_ || produced_ >= target || failed_ ||
             static_cast<int>(outputs_.size() + held_.size()) >= plan_.output_depth;
    });
  }
}

bool Executor::wait_for_outputs(std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lk(mu_);
  const auto start = std::chrono::steady_clock::now();
  const bool ready =
      cv_.wait_for(lk, timeout, [&] { return stop_ || broken_ || !outputs_.empty(); });
  stats_->on_consumer_wait(elapsed_ns(start));
  return ready;
}

std::shared_ptr<Outputs> Executor::share_outputs() {
  std::unique_lock<std::mutex> lk(mu_);
  SLUICE_CHECK(!broken_, Error,
               "the pipeline stopped after an error (raised earlier); call reset() to continue");
  if (outputs_.empty()) {
    SLUICE_CHECK(produced_ < scheduled_, InvalidArgument,
                 "share_outputs() / outputs() called with no iteration scheduled: call "
                 "schedule_run() (or run()) first");
    SLUICE_CHECK(static_cast<int>(held_.size()) < plan_.output_depth, InvalidArgument,
                 "share_outputs() called while ", held_.size(),
                 " outputs are held (prefetch_queue_depth); call release_outputs() first");
  }
  const auto wait_start = std::chrono::steady_clock::now();
  cv_.wait(lk, [&] { return stop_ || !outputs_.empty(); });
  stats_->on_consumer_wait(elapsed_ns(wait_start));
  SLUICE_CHECK(!outputs_.empty(), Cancelled, "the pipeline is shutting down");
  auto out = std::move(outputs_.front());
  outputs_.pop_front();
  if (out->error) {
    broken_ = true;
    cv_.notify_all();
    std::rethrow_exception(out->error);
  }
  held_.push_back(out);
  return out;
}

void Executor::release_outputs() {
  {
    std::lock_guard<std::mutex> lk(mu_);
    if (held_.empty()) return;
    held_.pop_front();
  }
  cv_.notify_all();
}

void Executor::reset() {
  stop_threads();
  {
    std::lock_guard<std::mutex> lk(mu_);
    iteration_base_ += cpu_next_;
    outputs_.clear();
    held_.clear();
    cpu_ready_.clear();
    mixed_ready_.clear();
    fed_.clear();
    scheduled_ = cpu_next_ = produced_ = device_started_ = 0;
    cpu_busy_ = mixed_busy_ = gpu_busy_ = cpu_inflight_ = device_inflight_ = 0;
    failed_ = broken_ = false;
    ++epoch_;
    stats_->on_reset();
  }
  for (auto& op : ops_) op->reset();
  start_threads();
}

void Executor::feed(const std::string& name, TensorList data) {
  int i = graph_.find_op(name);
  SLUICE_CHECK(i >= 0 && graph_.ops[i].type == "external_source", InvalidArgument,
               "feed_input: no external_source named '", name, "' in this pipeline");
  std::lock_guard<std::mutex> lk(mu_);
  fed_[name].push_back(std::move(data));
}

nlohmann::json Executor::statistics() const {
  return stats_->operators(graph_, ops_);
}

nlohmann::json Executor::pipeline_statistics() const {
  nlohmann::json j = stats_->stages();
  j["num_threads"] = params_.num_threads;
  j["cpu_workers"] = plan_.cpu_workers;
  j["prefetch_queue_depth"] = plan_.output_depth;
  return j;
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

}  // namespace sluice
