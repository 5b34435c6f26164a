#pragma once
// Random number generation for random.coin_flip and random.uniform: each sample's values are the
// draws of its SampleRng, in order, so CPU and GPU produce the same bits.

#include <cmath>
#include <cstdint>
#include <vector>

#include "sluice/core/dtype.h"
#include "sluice/core/rng.h"

namespace sluice::kernels {

enum class RandomDist : uint8_t {
  kCoinFlip,  // 1 with probability p0, else 0
  kUniform,   // uniform in [p0, p1), p0 < p1
  kDiscrete,  // one of `values`, uniformly
};

struct RandomSample {
  void* out;
  int64_t n;
  SampleRng rng;  // the sample's stream (position 0)
  float p0, p1;
  int32_t first_value = 0, num_values = 0;  // kDiscrete: the sample's values in `values`
};

// Value of draw `u` (a 32-bit draw) for the distribution.
SLUICE_HOST_DEVICE inline double random_value(RandomDist d, uint32_t u, float p0, float p1,
                                              const float* values, int num_values) {
  switch (d) {
    case RandomDist::kCoinFlip:
      return SampleRng::unit_float(u) < p0 ? 1.0 : 0.0;
    case RandomDist::kUniform: {
      // lo + (hi - lo) * u rounds up to hi when the range is a few ulps wide: the range is
      // half-open, so such a draw becomes the largest float below hi.
      const float v = SampleRng::scale_unit(SampleRng::unit_float(u), p0, p1);
      return v < p1 ? v : nextafterf(p1, p0);
    }
    case RandomDist::kDiscrete:
      return values[static_cast<uint32_t>((static_cast<uint64_t>(u) * num_values) >> 32)];
  }
  return 0;
}

// `values`: the discrete values of all samples (kDiscrete), each sample's from first_value.
void random_cpu(RandomDist d, const RandomSample& s, DType out_type, const float* values);

// CUDA: `samples` and `values` in device memory.
void random_gpu(RandomDist d, const RandomSample* samples, int num_samples, int64_t max_n,
                DType out_type, const float* values, void* stream);

}  // namespace sluice::kernels
