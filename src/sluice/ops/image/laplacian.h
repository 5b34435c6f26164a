#pragma once
// laplacian's plan of a batch, shared by its CPU (laplacian.cc) and GPU (laplacian_gpu.cc)
// classes: per sample and spatial axis, the separable windows of that axis' second derivative
// (the derivative window along it, smoothing windows along the others) and its scale.

#include <vector>

#include "sluice/ops/image/convolution_args.h"

namespace sluice {

struct LaplacianPlan {
  DType in_type, out_type;
  int axes = 0;
  std::vector<kernels::conv::SeparableShape> shapes;
  // [sample][derivative axis][window axis]
  std::vector<std::vector<std::vector<std::vector<float>>>> windows;
  std::vector<std::vector<float>> scales;  // [sample][derivative axis]
};

LaplacianPlan plan_laplacian(const Workspace& ws);

// The passes of sample `i`: for each derivative axis d in order, a separable convolution (the
// innermost axis first) into `acc` (FLOAT, the sample's volume), each after the first adding
// `acc`; the last one writes `out`. `tmp` as kernels::conv::separable_passes takes it.
std::vector<kernels::conv::AxisPass> laplacian_passes(const LaplacianPlan& plan, int i,
                                                      const void* in, void* out, float* acc,
                                                      void* const tmp[2],
                                                      const std::vector<const float*>& windows);

}  // namespace sluice
