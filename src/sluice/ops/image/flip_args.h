#pragma once
// What the CPU and GPU flip share: which axes its flags name in each of DALI's layouts, and the
// strided copy that flips a volume or a sequence (2-D images take the crop kernels instead).

#include "sluice/exec/operator.h"
#include "sluice/kernels/slice/strided_copy.h"

namespace sluice {

// The axes that depthwise, vertical and horizontal flip (depth -1 when there is none), from the
// layout: FDHWC, FHWC, DHWC, HWC, FCDHW, FCHW, CDHW or CHW, as DALI; an empty layout is HWC,
// FHWC or FDHWC by the number of dimensions. Throws InvalidArgument for other layouts and types
// (bool).
struct FlipAxes {
  int depth = -1, height = 0, width = 1;
};
FlipAxes flip_axes(const TensorList& in);

// True when the batch is 2-D images (HWC or CHW, with or without a layout) of an element type
// the crop kernels take, which flip faster than a general strided copy.
bool flip_as_image(const TensorList& in);

// Output `sample` = input `sample` with the named axes reversed (both lists of the same shapes).
kernels::StridedCopyDesc flip_copy_desc(const TensorList& in, TensorList& out, int sample,
                                        const FlipAxes& axes, bool depthwise, bool vertical,
                                        bool horizontal);

}  // namespace sluice
