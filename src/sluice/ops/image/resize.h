#pragma once
// What resize and random_resized_crop share: the filter arguments, the output type, each
// sample's plan, and the operator classes (resize.cc, resize_gpu.cc), which both register.

#include "sluice/core/crop_window.h"
#include "sluice/exec/operator.h"
#include "sluice/graph/op_schema.h"
#include "sluice/kernels/resize/resample_filter.h"
#include "sluice/kernels/resize/resize_geometry.h"
#include "sluice/kernels/resize/resize_params.h"
#include "sluice/ops/gpu_operator.h"

namespace sluice {

// The filter arguments: interp_type, min_filter, mag_filter, antialias, dtype and those accepted
// for compatibility.
OpSchema filter_args(OpSchema s);
// Filters from interp_type / min_filter / mag_filter / antialias.
kernels::ResampleFilters resize_filters(const OpSpec& spec);
// Output type: `dtype` when given, else the input's.
DType resize_output_type(const OpSpec& spec, DType input);
// What one sample resizes: a window of the input (the whole image for fn.resize) and the
// geometry within it. random_resized_crop crops first and resizes the crop (torchvision's
// resized_crop), so the filter never reaches past the window.
struct ResizePlan {
  CropWindow input;
  kernels::ResizeGeometry geometry;
};
ResizePlan resize_plan(const Workspace& ws, int sample, int64_t in_h, int64_t in_w);

// Separable resampling, Pillow-exact on uint8 (resize.cc).
class ResizeCpu : public Operator {
 public:
  using Operator::Operator;
  void setup(const OpContext& ctx) override;
  void run(Workspace& ws) override;

 private:
  kernels::ResampleFilters filters_;
  std::vector<std::vector<std::byte>> scratch_;  // per thread
};

// Batched separable resampling, one launch per pass (resize_gpu.cc, CUDA builds only).
class ResizeGpu : public GpuOperator {
 public:
  using GpuOperator::GpuOperator;
  void setup(const OpContext& ctx) override;
  void run(Workspace& ws) override;

 private:
  kernels::ResampleFilters filters_;
};

}  // namespace sluice
