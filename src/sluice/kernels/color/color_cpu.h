#pragma once
// The colour kernels on the CPU: brightness / contrast (multiply-add), hue / saturation / value
// and colour twists (a 3x3 matrix and an offset per pixel), colour space conversions. The
// reference of the CUDA kernels (color_gpu.h); the per-pixel arithmetic is color_pixel.h's.

#include "sluice/core/dtype.h"
#include "sluice/kernels/color/color_types.h"

namespace sluice::kernels::color {

// Element types of kMultiplyAdd and kMatrix3 (in and out): UINT8, INT16, INT32, FLOAT16, FLOAT.
// The conversions take and give UINT8.
bool affine_type_supported(DType t);

// Runs `op` over sample `s` on the calling thread. Throws InvalidArgument for an unsupported type.
void color_cpu(const ColorSample& s, ColorOp op, DType in, DType out);

}  // namespace sluice::kernels::color
