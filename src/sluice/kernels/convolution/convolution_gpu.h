#pragma once
// The convolution passes on the GPU: one launch runs the same pass (axis) of every sample of a
// batch. convolution.h's CPU code is the reference; the per-element code is shared, so the
// outputs are identical bit for bit. CUDA builds only.

#include "sluice/core/dtype.h"
#include "sluice/kernels/convolution/convolution.h"

namespace sluice::kernels::conv {

// `passes` is device memory (num_samples descriptors whose pointers, windows included, are
// device memory); `max_elements` the largest outer * extent * inner. Asynchronous on `stream`.
void convolve_axis_gpu(const AxisPass* passes, int num_samples, int64_t max_elements, DType in_type,
                       DType out_type, void* stream);

}  // namespace sluice::kernels::conv
