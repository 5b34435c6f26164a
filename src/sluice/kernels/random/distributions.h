#pragma once
// Samplers that take a varying number of draws (rejection): gamma, beta and Poisson. `Draws` is
// anything with `uint32_t operator()()` giving the next 32-bit draw: a SampleRng's sequence
// (random.beta) or a value's own run of draws (ValueDraws: noise.shot, where a GPU thread makes
// each value alone). Host and device from one source.

#include <cmath>
#include <cstdint>

#include "sluice/core/rng.h"
#include "sluice/kernels/random/random.h"

namespace sluice::kernels {

// The draws of value `index`: its own run of kDraws in the sample's stream, so a value never
// depends on how many draws the values before it took.
struct ValueDraws {
  static constexpr uint64_t kDraws = 32;
  SLUICE_HOST_DEVICE ValueDraws(const SampleRng& rng, uint64_t index)
      : rng_(rng), next_(index * kDraws), end_(next_ + kDraws) {}
  SLUICE_HOST_DEVICE uint32_t operator()() { return rng_.nth_u32(next_++); }
  SLUICE_HOST_DEVICE bool exhausted() const { return next_ + 2 > end_; }

 private:
  const SampleRng& rng_;
  uint64_t next_, end_;
};

template <typename Draws>
SLUICE_HOST_DEVICE bool draws_exhausted(const Draws& d) {
  if constexpr (requires { d.exhausted(); }) {
    return d.exhausted();
  } else {
    return false;
  }
}

// Uniform double in (0, 1) from one draw.
SLUICE_HOST_DEVICE inline double open_unit(uint32_t u) {
  return (u + 0.5) * 0x1p-32;
}

// log of a Gamma(shape, 1) value, shape > 0 (Marsaglia and Tsang, 2000; for shape < 1 the
// value of shape + 1 times U^(1/shape), kept in logs so that tiny shapes do not underflow).
template <typename Draws>
SLUICE_HOST_DEVICE double log_gamma_value(double shape, Draws& draw) {
  double boost = 0;
  if (shape < 1) {
    boost = log(open_unit(draw())) / shape;
    shape += 1;
  }
  const double d = shape - 1.0 / 3.0, c = 1.0 / sqrt(9.0 * d);
  for (;;) {
    const uint32_t a = draw(), b = draw();
    const double x = standard_normal(a, b);
    double v = 1.0 + c * x;
    if (v <= 0) continue;
    v = v * v * v;
    const double u = open_unit(draw());
    if (log(u) < 0.5 * x * x + d - d * v + d * log(v)) return log(d * v) + boost;
  }
}

// A Beta(alpha, beta) value, alpha, beta > 0: X / (X + Y) of two gamma values, from their logs.
template <typename Draws>
SLUICE_HOST_DEVICE double beta_value(double alpha, double beta, Draws& draw) {
  const double lx = log_gamma_value(alpha, draw);
  const double ly = log_gamma_value(beta, draw);
  return 1.0 / (1.0 + exp(ly - lx));
}

// A Poisson(lambda) value, lambda >= 0: inversion below 10, else PTRS (Hormann, 1993). A
// ValueDraws that runs out (probability below 1e-15) gives the rounded mean.
template <typename Draws>
SLUICE_HOST_DEVICE double poisson_value(double lambda, Draws& draw) {
  if (!(lambda > 0)) return 0;
  if (lambda < 10) {
    const double u = open_unit(draw());
    double p = exp(-lambda), cdf = p;
    double k = 0;
    while (u > cdf && k < 1000) {
      k += 1;
      p *= lambda / k;
      cdf += p;
    }
    return k;
  }
  const double slam = sqrt(lambda), loglam = log(lambda);
  const double b = 0.931 + 2.53 * slam, a = -0.059 + 0.02483 * b;
  const double invalpha = 1.1239 + 1.1328 / (b - 3.4), vr = 0.9277 - 3.6224 / (b - 2);
  while (!draws_exhausted(draw)) {
    const double u = open_unit(draw()) - 0.5, v = open_unit(draw());
    const double us = 0.5 - fabs(u);
    const double k = floor((2 * a / us + b) * u + lambda + 0.43);
    if (us >= 0.07 && v <= vr) return k;
    if (k < 0 || (us < 0.013 && v > us)) continue;
    if (log(v) + log(invalpha) - log(a / (us * us) + b) <= -lambda + k * loglam - lgamma(k + 1)) {
      return k;
    }
  }
  return rint(lambda);
}

}  // namespace sluice::kernels
