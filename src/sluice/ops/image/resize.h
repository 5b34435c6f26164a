#pragma once
// What resize, random_resized_crop and resize_crop_mirror share: the size and filter arguments,
// the output type, each sample's plan, and the operator classes (resize.cc, resize_gpu.cc): each
// operator's file registers the CPU class, resize_gpu.cc the GPU class for all three.

#include "sluice/core/crop_window.h"
#include "sluice/exec/operator.h"
#include "sluice/graph/op_schema.h"
#include "sluice/kernels/resize/resample_filter.h"
#include "sluice/kernels/resize/resize_geometry.h"
#include "sluice/kernels/resize/resize_params.h"
#include "sluice/ops/gpu_operator.h"

namespace sluice {

// The size arguments: resize_x, resize_y, size, resize_shorter, resize_longer, mode, max_size,
// roi_start, roi_end, roi_relative, subpixel_scale.
OpSchema resize_size_args(OpSchema s);
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
// resize_crop_mirror: narrows `g` (the whole resized image) to the crop window of the resized
// image and mirrors it as `mirror` asks, so that one resize produces the crop directly
// (resize_crop_mirror.cc).
void crop_and_mirror(const Workspace& ws, int sample, kernels::ResizeGeometry& g);

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
