#pragma once
// CUDA cast and arithmetic over a batch: one launch for all samples. The per-sample
// descriptors live in device memory (see memory/param_upload.h).

#include <cstdint>

#include "sluice/kernels/elementwise/elementwise_cpu.h"

namespace sluice::kernels {

// One sample of cast: n elements of `a` into `out` (the other fields are unused).
struct ElementwiseSample {
  void* out;
  const void* a;
  const void* b;
  int64_t n;
  int64_t a_step;
  int64_t b_step;
};

void cast_gpu(const ElementwiseSample* samples, int num_samples, int64_t max_n, DType to,
              DType from, void* stream);

// The GPU twin of arithmetic_cpu(): samples (device memory) with device pointers, `max_n` the
// largest output volume. Constant operands are read from `p`. Integer // and % by zero give 0
// (the GPU cannot refuse them without waiting for the data).
void arithmetic_gpu(const ArithParams& p, const ArithSampleDesc* samples, int num_samples,
                    int64_t max_n, void* stream);

}  // namespace sluice::kernels
