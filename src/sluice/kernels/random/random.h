#pragma once
// Random number generation for random.coin_flip, random.uniform and random.normal: each sample's
// values are the draws of its SampleRng, in order (draws_per_value() each), so CPU and GPU
// produce the same values (bit for bit but for the last ulp of the normal's log and cos).

#include <cmath>
#include <cstdint>
#include <vector>

#include "sluice/core/dtype.h"
#include "sluice/core/rng.h"
#include "sluice/kernels/common/host_device.h"

namespace sluice::kernels {

enum class RandomDist : uint8_t {
  kCoinFlip,  // 1 with probability p0, else 0
  kUniform,   // uniform in [p0, p1), p0 < p1
  kDiscrete,  // one of `values`, uniformly
  kNormal,    // normal with mean p0 and standard deviation p1
  kBeta,      // beta with alpha p0 and beta p1 (CPU only: rejection takes varying draws)
};

SLUICE_HOST_DEVICE inline int draws_per_value(RandomDist d) {
  return d == RandomDist::kNormal ? 2 : 1;
}

// A standard normal value from two 32-bit draws (Box-Muller; the first draw maps into (0, 1) so
// the log is finite).
SLUICE_HOST_DEVICE inline double standard_normal(uint32_t a, uint32_t b) {
  const double u = (static_cast<double>(a) + 0.5) * 0x1p-32;
  const double t = static_cast<double>(b) * 0x1p-32;
  return sqrt(-2.0 * log(u)) * cos(6.283185307179586 * t);
}

struct RandomSample {
  void* out;
  int64_t n;
  SampleRng rng;  // the sample's stream (position 0)
  float p0, p1;
  int32_t first_value = 0, num_values = 0;  // kDiscrete: the sample's values in `values`
};

// Value of draw `u` (a 32-bit draw; `u2` the next one, for distributions that take two).
SLUICE_HOST_DEVICE inline double random_value(RandomDist d, uint32_t u, uint32_t u2, float p0,
                                              float p1, const float* values, int num_values) {
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
    case RandomDist::kNormal:
      return add_rn<double>(p0, mul_rn<double>(p1, standard_normal(u, u2)));
    case RandomDist::kBeta:
      break;  // random_cpu draws it with beta_value()
  }
  return 0;
}

// `values`: the discrete values of all samples (kDiscrete), each sample's from first_value.
void random_cpu(RandomDist d, const RandomSample& s, DType out_type, const float* values);

// CUDA: `samples` and `values` in device memory.
void random_gpu(RandomDist d, const RandomSample* samples, int num_samples, int64_t max_n,
                DType out_type, const float* values, void* stream);

}  // namespace sluice::kernels
