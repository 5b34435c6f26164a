#pragma once
// CPU reference of the fused resize + crop_mirror_normalize (resize_normalize_gpu in
// resize_gpu.h): the fused result is resize_cpu() to uint8 followed by this plain loop.
//
// Thread safety: reentrant.

#include "sluice/kernels/resize/resize_params.h"

namespace sluice::kernels {

// Writes `crop` of the uint8 image `resized` (mirrored horizontally when `mirror`), normalised
// (see ResizeNormalizeParams) to float32 or float16 (round to nearest even, as
// __float2half_rn), HWC or CHW, densely into `out` (crop.height x crop.width x C or
// C x crop.height x crop.width elements).
// Throws InvalidArgument for a non-uint8 input, channels outside 1..4, a crop outside the
// image, non-finite or zero-stddev normalisation, an unsupported output type or null data.
void crop_mirror_normalize_u8_cpu(const ConstHwcImage& resized, const ResizeCrop& crop, bool mirror,
                                  const ResizeNormalizeParams& norm, ResizeOutputLayout layout,
                                  DType out_type, void* out);

}  // namespace sluice::kernels
