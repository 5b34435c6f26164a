#pragma once
// Batched CUDA coord_transform (see coord_transform.h, its CPU reference): one launch per batch,
// a thread per point; bit-identical to coord_transform_cpu.
//
// Usage per batch: fill one CoordTransformGpuSample per sample, upload them to device memory
// (the caller's ParamUpload), call coord_transform_gpu on the stream. No allocation, no
// synchronisation. Thread safety: stateless.

#include <cstdint>

#include "sluice/core/dtype.h"
#include "sluice/kernels/geometry/coord_transform.h"

namespace sluice::kernels {

struct CoordTransformGpuSample {
  const void* in = nullptr;
  void* out = nullptr;
  int64_t num_points = 0;
  CoordTransformParams params;
};

// `samples` is device memory holding `num_samples` descriptors whose largest num_points is
// `max_points`. Throws InvalidArgument for unsupported types, CudaError on CUDA failures.
void coord_transform_gpu(const CoordTransformGpuSample* samples, int num_samples,
                         int64_t max_points, DType in_type, DType out_type, void* stream);

}  // namespace sluice::kernels
