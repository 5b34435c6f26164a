#pragma once
// CUDA cast and arithmetic over a batch: one launch for all samples. The per-sample
// descriptors live in device memory (see cuda/param_upload.h).

#include <cstdint>

#include "sluice/kernels/elementwise/elementwise_cpu.h"

namespace sluice::kernels {

struct ElementwiseSample {
  void* out;
  const void* a;
  const void* b;   // unused for cast and scalar arithmetic
  int64_t n;       // output elements
  int64_t a_step;  // 1, or 0 to broadcast a single element
  int64_t b_step;
};

void cast_gpu(const ElementwiseSample* samples, int num_samples, int64_t max_n, DType to,
              DType from, void* stream);
void arithmetic_gpu(const ArithParams& p, const ElementwiseSample* samples, int num_samples,
                    int64_t max_n, void* stream);

}  // namespace sluice::kernels
