#pragma once
// Operators and the workspace they run in.
//
// Operators orchestrate, kernels compute: an operator reads its arguments, allocates its
// outputs and calls kernels or codecs per sample (CPU) or per batch (GPU). One operator = one
// schema (graph/op_schema.h) + one class per device + one registration line, in one place.
//
// Thread safety: run() is called from one stage thread at a time for a given operator; CPU
// operators parallelise over samples with Workspace::for_each_sample. Per-thread state is
// indexed by the thread index passed to the work item (ThreadPool::num_slots() entries).

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sluice/core/rng.h"
#include "sluice/cuda/cuda_api.h"
#include "sluice/graph/op_spec.h"
#include "sluice/memory/tensor_list.h"
#include "sluice/parallel/thread_pool.h"

namespace sluice {

// Identity of a sample: where it came from and which random stream it uses.
struct SampleInfo {
  std::string source;  // file path, or empty
  int64_t epoch = 0;
  int64_t id = 0;  // dataset index for readers; position since the last reset otherwise
};

// Per-iteration state shared by the operators of one iteration. Sources size it.
struct BatchInfo {
  int64_t iteration = 0;
  int size = 0;
  bool sized = false;
  std::vector<SampleInfo> samples;
  // Set by readers: iterators implement last-batch policies from these.
  bool from_reader = false;
  int64_t epoch = 0;
  int64_t batch_in_epoch = 0;
  int64_t batches_per_epoch = 0;
  int num_valid = 0;
  bool complete_on_all_shards = true;
  // Data fed from the consumer thread for external_source operators, by operator name.
  std::map<std::string, TensorList, std::less<>> fed;
};

// What an operator learns once, when the pipeline is built.
struct OpContext {
  int max_batch_size = 0;
  int num_threads = 0;
  int num_slots = 0;  // per-thread state entries (ThreadPool::num_slots())
  int device_id = -1;
  uint64_t seed = 0;  // this operator's seed
  ThreadPool* pool = nullptr;
  cuda::StreamHandle stream = nullptr;  // the pipeline's stream (mixed / gpu operators)
  int stream_priority = 0;  // for streams an operator creates itself (the pipeline's priority)
};

// Indices of `cost` from the largest value to the smallest (ties in index order).
std::vector<int> costliest_first(std::span<const double> cost);

// The samples an operator runs on: its inputs' and argument inputs' count, which must agree
// (the largest, for a schema with uneven_inputs()); the iteration's `batch_size` without any.
// Inside a conditional branch this is the branch's share of the batch, possibly 0.
int operator_batch_size(const OpSpec& spec, const std::vector<const TensorList*>& inputs,
                        const std::map<std::string, const TensorList*, std::less<>>& arg_inputs,
                        int batch_size);

class Workspace {
 public:
  struct IO {
    std::vector<const TensorList*> inputs;
    std::vector<TensorList*> outputs;
    std::map<std::string, const TensorList*, std::less<>> arg_inputs;
  };

  // `batch_size`: the samples the operator runs on (operator_batch_size()).
  Workspace(const OpSpec& spec, const OpContext& ctx, BatchInfo& batch, IO io, int batch_size,
            int caller_slot, std::function<void(const std::vector<int>&)> remap_earlier)
      : spec_(spec),
        ctx_(ctx),
        batch_(batch),
        io_(std::move(io)),
        batch_size_(batch_size),
        caller_slot_(caller_slot),
        remap_earlier_(std::move(remap_earlier)) {}

  const OpSpec& spec() const { return spec_; }
  const OpContext& context() const { return ctx_; }
  BatchInfo& batch() { return batch_; }
  // The samples this operator runs on: the iteration's, or fewer inside a conditional branch.
  int batch_size() const { return batch_size_; }

  int num_inputs() const { return static_cast<int>(io_.inputs.size()); }
  const TensorList& input(int i) const { return *io_.inputs[i]; }
  int num_outputs() const { return static_cast<int>(io_.outputs.size()); }
  TensorList& output(int i) { return *io_.outputs[i]; }

  // The per-sample tensor given for argument `name`, or nullptr.
  const TensorList* arg_input(std::string_view name) const;
  // Scalar argument for `sample`: the tensor input's value when connected, else the constant.
  template <typename T>
  T arg(std::string_view name, int sample) const;
  // List argument for `sample` (a 1-D tensor input, or the constant list).
  template <typename T>
  std::vector<T> arg_list(std::string_view name, int sample) const;

  // The random stream of `sample` for this operator.
  SampleRng rng(int sample) const {
    const SampleInfo& s = batch_.samples[sample];
    return SampleRng(ctx_.seed, s.epoch, s.id);
  }

  // Runs fn(sample, thread) for every sample on the pool; an exception is re-raised with the
  // sample (and its file) named. Runs inline for batches of at most `inline_below` samples.
  // `cost` (empty, or an estimate per sample in any unit): the costliest samples go first, so the
  // batch ends on short ones and the threads finish together instead of waiting for one.
  void for_each_sample(const std::function<void(int sample, int thread)>& fn, int inline_below = 1,
                       std::span<const double> cost = {});
  // Time spent in for_each_sample's work, summed over threads (ns): the executor compares it
  // with the operator's wall time to tell how busy the threads were.
  uint64_t work_ns() const { return work_ns_.load(std::memory_order_relaxed); }
  // "sample 3 (file '/data/a.jpg')"
  std::string sample_context(int sample) const;
  // The file (or other source) a sample came from; "" when unknown.
  std::string sample_source(int sample) const;
  int caller_slot() const { return caller_slot_; }
  cuda::StreamHandle stream() const { return ctx_.stream; }

  // on_error="skip": replaces sample i by sample source[i] in every tensor this iteration has
  // produced before this operator (labels, file names, ...), so a replaced sample stays
  // consistent across outputs. The operator remaps its own outputs itself.
  void remap_earlier_outputs(const std::vector<int>& source) { remap_earlier_(source); }

 private:
  const OpSpec& spec_;
  const OpContext& ctx_;
  BatchInfo& batch_;
  IO io_;
  int batch_size_;
  int caller_slot_;
  std::function<void(const std::vector<int>&)> remap_earlier_;
  std::atomic<uint64_t> work_ns_{0};
};

class Operator {
 public:
  explicit Operator(const OpSpec& spec) : spec_(spec) {}
  virtual ~Operator() = default;
  Operator(const Operator&) = delete;
  Operator& operator=(const Operator&) = delete;

  // Once, when the pipeline is built.
  virtual void setup(const OpContext& ctx) {}
  // Sources only: at the start of every iteration, before any operator runs; sizes the batch.
  virtual void begin_iteration(BatchInfo& batch) {}
  virtual void run(Workspace& ws) = 0;
  // Pipeline reset (after the end of the data or an error).
  virtual void reset() {}
  // Readers: DALI's reader_meta fields; null otherwise.
  virtual nlohmann::json reader_meta() const { return nullptr; }
  // Operator-specific statistics for executor_statistics() (e.g. skipped samples).
  virtual nlohmann::json stats() const { return nlohmann::json::object(); }

  const OpSpec& spec() const { return spec_; }

 protected:
  OpSpec spec_;
};

using OperatorFactory = std::unique_ptr<Operator> (*)(const OpSpec&);

// Implementations of schemas per device. Filled by static initialisers.
class OperatorRegistry {
 public:
  static OperatorRegistry& instance();
  bool add(std::string type, OpDevice device, OperatorFactory f);
  // Throws NotImplemented naming the operator and device when this build lacks it.
  std::unique_ptr<Operator> create(const OpSpec& spec) const;
  bool has(std::string_view type, OpDevice device) const;

 private:
  std::map<std::pair<std::string, OpDevice>, OperatorFactory> factories_;
};

// Reads element 0 of sample `i` of `t`, converted to T.
template <typename T>
T tensor_scalar(const TensorList& t, int i);
// Reads sample `i` of `t` as a flat list converted to T.
template <typename T>
std::vector<T> tensor_values(const TensorList& t, int i);

template <typename T>
T Workspace::arg(std::string_view name, int sample) const {
  if (const TensorList* t = arg_input(name)) return tensor_scalar<T>(*t, sample);
  return spec_.arg<T>(name);
}

template <typename T>
std::vector<T> Workspace::arg_list(std::string_view name, int sample) const {
  if (const TensorList* t = arg_input(name)) return tensor_values<T>(*t, sample);
  return spec_.arg<std::vector<T>>(name);
}

template <typename T>
T tensor_scalar(const TensorList& t, int i) {
  SLUICE_CHECK(t.kind() != MemoryKind::kDevice, InvalidArgument,
               "argument inputs must be CPU data");
  SLUICE_CHECK(volume(t.shape(i)) >= 1, InvalidArgument, "argument input sample ", i, " is empty");
  return dtype_dispatch(t.dtype(), [&](auto tag) -> T {
    using S = typename decltype(tag)::type;
    const S v = t.sample<S>(i)[0];
    if constexpr (std::is_same_v<S, float16> || std::is_same_v<S, bfloat16>) {
      return static_cast<T>(static_cast<float>(v));
    } else {
      return static_cast<T>(v);
    }
  });
}

template <typename T>
std::vector<T> tensor_values(const TensorList& t, int i) {
  SLUICE_CHECK(t.kind() != MemoryKind::kDevice, InvalidArgument,
               "argument inputs must be CPU data");
  std::vector<T> out(static_cast<size_t>(volume(t.shape(i))));
  dtype_dispatch(t.dtype(), [&](auto tag) {
    using S = typename decltype(tag)::type;
    const S* p = t.sample<S>(i);
    for (size_t k = 0; k < out.size(); ++k) {
      if constexpr (std::is_same_v<S, float16> || std::is_same_v<S, bfloat16>) {
        out[k] = static_cast<T>(static_cast<float>(p[k]));
      } else {
        out[k] = static_cast<T>(p[k]);
      }
    }
  });
  return out;
}

}  // namespace sluice

#define SLUICE_OP_CONCAT_IMPL(a, b) a##b
#define SLUICE_OP_CONCAT(a, b) SLUICE_OP_CONCAT_IMPL(a, b)
// Registers `Class` as the implementation of schema `type` on `device`. (__COUNTER__, not
// __LINE__: the unity builds of the sanitizer presets put several operators in one file.)
#define SLUICE_REGISTER_OPERATOR(type, device, Class)                                          \
  static const bool SLUICE_OP_CONCAT(sluice_op_registered_, __COUNTER__) =                     \
      ::sluice::OperatorRegistry::instance().add(                                              \
          type, device, [](const ::sluice::OpSpec& s) -> std::unique_ptr<::sluice::Operator> { \
            return std::make_unique<Class>(s);                                                 \
          })
