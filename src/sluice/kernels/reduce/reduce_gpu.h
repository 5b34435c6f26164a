#pragma once
// The CUDA reductions: every sample of a batch in one launch, with the arithmetic of reduce.h.

#include <cstdint>

#include "sluice/kernels/reduce/reduce.h"

namespace sluice::kernels {

// One sample (device pointers). `mean`: variance and standard deviation only.
struct ReduceSampleGpu {
  const void* in;
  void* out;
  const float* mean;
  ReduceGeometry g;
};

// `samples` in device memory; `max_out` and `max_reduced` bound the samples' out_volume and
// reduced_volume.
void reduce_gpu(ReduceOp op, const ReduceSampleGpu* samples, int num_samples, int64_t max_out,
                int64_t max_reduced, DType out_type, DType in_type, int ddof, void* stream);

}  // namespace sluice::kernels
