#pragma once
// Batched CUDA affine warp (see warp.h, its CPU reference): one launch per batch, a few output
// pixels per thread; bit-identical to warp_cpu.
//
// Usage per batch: one WarpSample per sample with device pointers (m_ptr may point to a matrix in
// device memory), uploaded to device memory by the caller; then warp_gpu on the stream. No
// allocation, no synchronisation. Thread safety: stateless.

#include <cstdint>

#include "sluice/kernels/geometry/warp.h"

namespace sluice::kernels {

// `samples`: device memory with `num_samples` descriptors of outputs at most `max_h` rows and
// `max_w` columns.
// `channels`: the samples' channel count when they all have the same (1 and 3 get kernels of
// their own), else 0. Throws InvalidArgument for unsupported types, CudaError on CUDA failures.
void warp_gpu(const WarpSample* samples, int num_samples, int64_t max_h, int64_t max_w,
              int channels, DType in_type, DType out_type, void* stream);

}  // namespace sluice::kernels
