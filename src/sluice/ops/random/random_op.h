#pragma once
// Shared argument handling of random.coin_flip and random.uniform (CPU: random_ops.cc,
// GPU: random_ops_gpu.cc).

#include <vector>

#include "sluice/exec/operator.h"
#include "sluice/kernels/random/random.h"

namespace sluice {

struct RandomPlan {
  kernels::RandomDist dist;
  DType dtype;
  std::vector<Shape> shapes;
  std::vector<float> p0, p1;  // per sample
  std::vector<float> values;  // discrete values (random.uniform values=)
};

RandomPlan plan_random(const OpSpec& spec, Workspace& ws);

}  // namespace sluice
