#pragma once
// Argument handling shared by resize and random_resized_crop on the CPU (resize_ops.cc) and
// the GPU (resize_ops_gpu.cc).

#include "sluice/core/crop_window.h"
#include "sluice/exec/operator.h"
#include "sluice/kernels/resize/resample_filter.h"
#include "sluice/kernels/resize/resize_geometry.h"
#include "sluice/kernels/resize/resize_params.h"

namespace sluice {

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

}  // namespace sluice
