#pragma once
// filter's plan of a batch, shared by its CPU (filter.cc) and GPU (filter_gpu.cc) classes.

#include <vector>

#include "sluice/kernels/convolution/filter.h"
#include "sluice/ops/image/convolution_args.h"

namespace sluice {

struct FilterPlan {
  DType in_type, out_type;
  std::vector<Shape> out_shapes;
  // Kernel, fill and data pointers are those of the workspace's inputs and output (host or
  // device memory, as the operator's).
  std::vector<kernels::conv::FilterSample> samples;
};

FilterPlan plan_filter(Workspace& ws);

}  // namespace sluice
