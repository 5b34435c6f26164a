#pragma once
// The noise operators' arithmetic (noise.gaussian, noise.salt_and_pepper, noise.shot). Element i
// of a sample takes fixed draws of the sample's stream (2i and 2i + 1; its group's draw; a run
// of its own for the Poisson sampler), so each element is computed alone, in any order, and the
// CUDA kernel gives the CPU's values.

#include <cmath>
#include <cstdint>
#include <cstring>

#include "sluice/core/dtype.h"
#include "sluice/core/rng.h"
#include "sluice/kernels/elementwise/convert.h"
#include "sluice/kernels/random/distributions.h"
#include "sluice/kernels/random/random.h"

namespace sluice::kernels {

enum class NoiseKind : uint8_t { kGaussian, kSaltAndPepper, kShot };

struct NoiseSample {
  const void* in;
  void* out;
  int64_t n;
  SampleRng rng;
  float p0, p1;         // gaussian: mean, stddev; salt and pepper: noise and salt probability;
                        // shot: factor
  double salt, pepper;  // salt and pepper: the values, exact in the element type
  int64_t group_div = 1, group_mod = 1;  // salt and pepper: element i's draw is (i / div) % mod
};

// Copies element i unchanged (64-bit integers do not go through a double).
SLUICE_HOST_DEVICE inline void copy_element(const void* in, void* out, int size, int64_t i) {
  const char* s = static_cast<const char*>(in) + i * size;
  char* d = static_cast<char*>(out) + i * size;
  for (int b = 0; b < size; ++b) d[b] = s[b];
}

SLUICE_HOST_DEVICE inline void noise_element(NoiseKind kind, const NoiseSample& s, DType t,
                                             int size, int64_t i) {
  switch (kind) {
    case NoiseKind::kGaussian: {
      const double z = standard_normal(s.rng.nth_u32(2 * i), s.rng.nth_u32(2 * i + 1));
      const double noise = add_rn<double>(s.p0, mul_rn<double>(s.p1, z));
      store_sat(s.out, t, i, add_rn(load_f64(s.in, t, i), noise));
      return;
    }
    case NoiseKind::kSaltAndPepper: {
      const float u = SampleRng::unit_float(s.rng.nth_u32((i / s.group_div) % s.group_mod));
      if (u < s.p0) {
        store_sat(s.out, t, i, u < s.p1 ? s.salt : s.pepper);
      } else {
        copy_element(s.in, s.out, size, i);
      }
      return;
    }
    case NoiseKind::kShot: {
      if (s.p0 == 0.0f) {
        store_sat(s.out, t, i, 0.0);
        return;
      }
      const float x = static_cast<float>(load_f64(s.in, t, i));
      const float lambda = fmaxf(0.0f, mul_rn(x, div_rn(1.0f, s.p0)));
      ValueDraws draws(s.rng, static_cast<uint64_t>(i));
      const auto k = static_cast<float>(poisson_value(lambda, draws));
      store_sat(s.out, t, i, mul_rn(k, s.p0));
      return;
    }
  }
}

void noise_cpu(NoiseKind kind, const NoiseSample& s, DType t);

// CUDA: `samples` in device memory; `max_n` the most elements of a sample.
void noise_gpu(NoiseKind kind, const NoiseSample* samples, int num_samples, int64_t max_n, DType t,
               void* stream);

}  // namespace sluice::kernels
