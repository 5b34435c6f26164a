#pragma once
// What gaussian_blur, laplacian and filter share: DALI's reading of a layout into frames or
// leading channels, spatial axes and trailing channels, per-axis arguments, the output type.

#include <array>
#include <vector>

#include "sluice/exec/operator.h"
#include "sluice/kernels/convolution/convolution.h"

namespace sluice {

// Leading 'F' / 'C' axes (at most 2), 1 to 3 spatial axes, and an optional trailing 'C'; without
// a layout every axis is spatial. Throws InvalidArgument as DALI does for other layouts.
struct ConvLayout {
  int outer_dims = 0;
  int axes = 0;
  bool channels = false;
};
ConvLayout parse_conv_layout(const TensorList& in);

kernels::conv::SeparableShape separable_shape(const Shape& s, const ConvLayout& l);

// A per-sample argument given as one value for every axis or one value per axis.
template <typename T>
std::vector<T> per_axis(const Workspace& ws, const char* name, int sample, int axes);

// The output type: the input's (no `dtype`), or `dtype` when it is the input's or FLOAT.
DType conv_output_type(const OpSpec& spec, DType in);

// gaussian_blur's windows of sample `sample`, one per spatial axis (from sigma and window_size).
std::vector<std::vector<float>> gaussian_windows(const Workspace& ws, int sample, int axes);

}  // namespace sluice
