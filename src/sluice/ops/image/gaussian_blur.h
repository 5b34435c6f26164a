#pragma once
// gaussian_blur's plan of a batch, shared by its CPU (gaussian_blur.cc) and GPU
// (gaussian_blur_gpu.cc) classes: per sample, its separable shape and one window per axis.

#include <vector>

#include "sluice/ops/image/convolution_args.h"

namespace sluice {

struct SeparablePlan {
  DType in_type, out_type;
  int axes = 0;
  std::vector<kernels::conv::SeparableShape> shapes;
  std::vector<std::vector<std::vector<float>>> windows;  // [sample][axis]
};

SeparablePlan plan_gaussian_blur(const Workspace& ws);

}  // namespace sluice
