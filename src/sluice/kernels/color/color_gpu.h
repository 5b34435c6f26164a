#pragma once
// The colour kernels on the GPU: one launch per batch runs the same ColorOp over every sample
// (color_cpu.h is the reference; the per-pixel arithmetic is shared, so the outputs are
// identical bit for bit). CUDA builds only.

#include "sluice/core/dtype.h"
#include "sluice/kernels/color/color_types.h"

namespace sluice::kernels::color {

// `samples` is device memory (num_samples descriptors, pointers into device memory);
// `max_pixels` the largest sample's ColorSample::pixels. Types as color_cpu's. Asynchronous on
// `stream`; throws InvalidArgument for unsupported types, CudaError on launch failures.
void color_gpu(const ColorSample* samples, int num_samples, int64_t max_pixels, ColorOp op,
               DType in, DType out, void* stream);

}  // namespace sluice::kernels::color
