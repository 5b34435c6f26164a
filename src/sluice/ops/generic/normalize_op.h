#pragma once
// What normalize's CPU and GPU classes share: the arguments, read into a plan per batch (the
// normalized axes, the parameter shapes, where the mean and standard deviation come from).

#include <cstdint>
#include <memory>
#include <vector>

#include "sluice/exec/operator.h"
#include "sluice/kernels/normalize/normalize.h"
#include "sluice/ops/gpu_operator.h"

namespace sluice {

struct NormalizePlan {
  enum class Source : uint8_t { kComputed, kScalar, kTensor };
  Source mean = Source::kComputed, stddev = Source::kComputed;
  bool batch = false;
  DType out_type = DType::kFloat32;
  float shift = 0, scale = 1, epsilon = 0;
  int ddof = 0;
  uint64_t axis_mask = 0;
  std::vector<int64_t> param_volume;  // per sample (the same for all with `batch`)
  std::vector<int64_t> count;         // input elements per parameter element, per sample
  std::vector<kernels::NormalizeGeometry> geometry;
  // Given values per sample, broadcast to the sample's parameter elements; for stddev, the
  // scaled inverse (scale / stddev, with epsilon).
  std::vector<std::vector<float>> mean_values, inv_values;

  kernels::NormalizeFoldParams fold(kernels::NormalizeFoldKind kind) const {
    return {kind, ddof, epsilon, scale};
  }
};

// DALI's rules: the axes come from `axes` / `axis_names`, else from the shape of a tensor `mean`
// or `stddev` (its axes of extent 1 in every sample), else all; a parameter tensor must have the
// input's shape with 1 along the normalized axes.
NormalizePlan plan_normalize(const OpSpec& spec, const Workspace& ws);

class NormalizeCpu : public Operator {
 public:
  using Operator::Operator;
  void run(Workspace& ws) override;
};

// The statistics and the normalization in a few launches per batch (CUDA builds only).
class NormalizeGpu : public GpuOperator {
 public:
  using GpuOperator::GpuOperator;
  void setup(const OpContext& ctx) override;
  void run(Workspace& ws) override;

 private:
  std::unique_ptr<TensorList> scratch_;  // device floats: statistics and parameters
};

}  // namespace sluice
