#include "sluice/exec/operator.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <numeric>

namespace sluice {

const TensorList* Workspace::arg_input(std::string_view name) const {
  auto it = io_.arg_inputs.find(name);
  return it == io_.arg_inputs.end() ? nullptr : it->second;
}

std::string Workspace::sample_context(int sample) const {
  // In a conditional branch the operator's sample i is not the iteration's sample i.
  if (sample < 0 || sample >= static_cast<int>(batch_.samples.size()) ||
      batch_size_ != batch_.size) {
    return make_string("sample ", sample);
  }
  const std::string& src = batch_.samples[sample].source;
  if (src.empty()) return make_string("sample ", sample);
  return make_string("sample ", sample, " (file '", src, "')");
}

int operator_batch_size(const OpSpec& spec, const std::vector<const TensorList*>& inputs,
                        const std::map<std::string, const TensorList*, std::less<>>& arg_inputs,
                        int batch_size) {
  int n = -1;
  std::string first;
  auto take = [&](const TensorList& t, const std::string& what) {
    const int k = t.num_samples();
    if (n < 0) {
      n = k;
      first = what;
    } else if (spec.schema->has_uneven_inputs()) {
      n = std::max(n, k);
    } else {
      SLUICE_CHECK(k == n, InvalidArgument, "batch sizes differ: ", first, " has ", n, " samples, ",
                   what, " has ", k);
    }
  };
  for (size_t i = 0; i < inputs.size(); ++i) take(*inputs[i], make_string("input ", i));
  for (const auto& [name, t] : arg_inputs) take(*t, make_string("argument '", name, "'"));
  return n < 0 ? batch_size : n;
}

std::string Workspace::sample_source(int sample) const {
  if (sample < 0 || sample >= static_cast<int>(batch_.samples.size())) return {};
  return batch_.samples[sample].source;
}

std::vector<int> costliest_first(std::span<const double> cost) {
  std::vector<int> order(cost.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return cost[a] > cost[b]; });
  return order;
}

void Workspace::for_each_sample(const std::function<void(int, int)>& fn, int inline_below,
                                std::span<const double> cost) {
  // The error reported is always the one of the lowest failing sample, whatever the thread
  // timing: samples above a known failure are skipped, those below it still run.
  const int n = batch_size();
  std::vector<int> order;
  if (!cost.empty()) {
    SLUICE_CHECK(static_cast<int>(cost.size()) == n, InvalidArgument,
                 "for_each_sample: ", cost.size(), " cost estimates for ", n, " samples");
    order = costliest_first(cost);
  }
  std::atomic<int> first_failed{n};
  std::vector<std::exception_ptr> errors;
  std::mutex mu;
  ctx_.pool->parallel_for(
      n,
      [&](int64_t k, int thread) {
        const int i = order.empty() ? static_cast<int>(k) : order[k];
        if (i > first_failed.load(std::memory_order_relaxed)) return;
        const auto t0 = std::chrono::steady_clock::now();
        try {
          fn(i, thread);
        } catch (...) {
          std::lock_guard<std::mutex> lk(mu);
          if (errors.empty()) errors.resize(n);
          errors[i] = std::current_exception();
          int prev = first_failed.load();
          while (i < prev && !first_failed.compare_exchange_weak(prev, i)) {
          }
        }
        const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                            std::chrono::steady_clock::now() - t0)
                            .count();
        work_ns_.fetch_add(static_cast<uint64_t>(ns), std::memory_order_relaxed);
      },
      caller_slot_, inline_below);
  if (first_failed.load() < n) {
    rethrow_with_context(errors[first_failed.load()], sample_context(first_failed.load()));
  }
}

OperatorRegistry& OperatorRegistry::instance() {
  static OperatorRegistry r;
  return r;
}

bool OperatorRegistry::add(std::string type, OpDevice device, OperatorFactory f) {
  factories_[{std::move(type), device}] = f;
  return true;
}

bool OperatorRegistry::has(std::string_view type, OpDevice device) const {
  return factories_.count({std::string(type), device}) > 0;
}

std::unique_ptr<Operator> OperatorRegistry::create(const OpSpec& spec) const {
  auto it = factories_.find({spec.type, spec.device});
  if (it == factories_.end()) {
    if (spec.device != OpDevice::kCPU && !cuda::built_with_cuda()) {
      throw NotImplemented(make_string(spec.describe(),
                                       ": this build of Sluice has no CUDA support; use "
                                       "device='cpu' or rebuild with nvcc available"));
    }
    throw NotImplemented(
        make_string(spec.describe(), ": no implementation for this device in this build"));
  }
  return it->second(spec);
}

}  // namespace sluice
