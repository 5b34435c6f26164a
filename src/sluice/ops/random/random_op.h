#pragma once
// What random.coin_flip, random.uniform and random.normal share: argument handling and the operator
// classes (each operator's file registers the CPU one, random_op_gpu.cc the GPU one for all
// three).

#include <memory>
#include <vector>

#include "sluice/exec/operator.h"
#include "sluice/kernels/random/random.h"
#include "sluice/ops/gpu_operator.h"

namespace sluice {

struct RandomPlan {
  kernels::RandomDist dist;
  DType dtype;
  std::vector<Shape> shapes;
  std::vector<float> p0, p1;  // per sample
  std::vector<float> values;  // discrete values of all samples (random.uniform values=)
  std::vector<int32_t> first_value, num_values;  // per sample, into `values`

  kernels::RandomSample sample(int i, void* out, SampleRng rng) const {
    return {out, volume(shapes[i]), rng, p0[i], p1[i], first_value[i], num_values[i]};
  }
};

RandomPlan plan_random(const OpSpec& spec, Workspace& ws);

// Every value comes from the sample's counter-based stream (seed, operator, epoch, sample), so
// results never depend on threads or prefetching.
class RandomCpu : public Operator {
 public:
  using Operator::Operator;
  void run(Workspace& ws) override;
};

// The same draws as RandomCpu, in one launch (CUDA builds only).
class RandomGpu : public GpuOperator {
 public:
  using GpuOperator::GpuOperator;
  void setup(const OpContext& ctx) override;
  void run(Workspace& ws) override;

 private:
  std::unique_ptr<ParamUpload> values_;  // random.uniform's discrete values
};

}  // namespace sluice
